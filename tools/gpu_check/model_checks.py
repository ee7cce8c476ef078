"""Full-size models compiled for the GPU ON the device machine (its llvmlite, onnx and
onnxruntime are the ones requirements-test.txt pins or newer; compiling there avoids carrying
~100 MB of weights per model): the BERT-class encoder (6 layers, hidden 384, seq 128, batch 1
and 8) and ResNet-50 of docs/benchmarks.md, built by benchmarks/model_bench.py's builders
(seeded random weights), `from_onnx` + `tvm.compile(target="cuda -arch=sm_90")` (the default
Relax pipeline: dlight GPU schedules), run by the VM on tvm.cuda(0).

Checked: outputs against onnxruntime on the CPU (the frontend's reference), max |diff| over
max |reference| at most 1e-3. Figures: compile seconds, our median latency, the five slowest
kernels (VirtualMachine.profile, which waits for the GPU around each call), and torch's eager
fp32 latency (TF32 off) of the same architecture on the same GPU — torchvision's resnet50 and
a post-norm nn.TransformerEncoder (6 layers, d 384, 6 heads, ffn 1536, GELU) with torch's own
random weights: latency does not depend on the values, so this is the peer a user would time.
"""

import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# The repository root: .devcheck/ (staged by tools/gpu_check.sh) sits in it, tools/gpu_check/
# two levels below it.
ROOT = next(d for d in (os.path.dirname(HERE), os.path.dirname(os.path.dirname(HERE)))
            if os.path.exists(os.path.join(d, "benchmarks", "model_bench.py")))
for sub in ("benchmarks", os.path.join("tests", "compiler_py")):
    sys.path.insert(0, os.path.join(ROOT, sub))

MODELS = ["bert6 d384 b1", "bert6 d384 b8", "resnet50"]
REPEAT = 50


def _median_ms(fn, sync, repeat=REPEAT):
    for _ in range(5):
        fn()
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


def _torch_peer(name, feeds):
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if name.startswith("bert"):
        layer = torch.nn.TransformerEncoderLayer(384, 6, 1536, dropout=0.0, activation="gelu",
                                                 batch_first=True)
        net = torch.nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)
        x = torch.from_numpy(feeds["x"])
    else:
        import torchvision

        net = torchvision.models.resnet50()
        x = torch.from_numpy(next(iter(feeds.values())))
    net = net.cuda().eval()
    x = x.cuda()
    with torch.inference_mode():
        return _median_ms(lambda: net(x), torch.cuda.synchronize)


def check_models_on_gpu(ctx):
    import onnxruntime as ort

    import tvm
    from tvm.relax.frontend.onnx import from_onnx
    from tvm.runtime.vm import VirtualMachine

    import model_bench

    builders = model_bench._models()
    dev = tvm.cuda(0)
    detail = {}
    for name in MODELS:
        model, feeds = builders[name]()
        t = time.perf_counter()
        exe = tvm.compile(from_onnx(model), target="cuda -arch=sm_90")
        compile_s = time.perf_counter() - t
        vm = VirtualMachine(exe, dev)
        order = [i.name for i in model.graph.input if i.name in feeds]
        args = [tvm.runtime.tensor(feeds[n], dev) for n in order]
        got = vm["main"](*args)
        got = (got[0] if isinstance(got, (list, tuple)) else got).numpy()
        # The device's onnxruntime (1.30) reads IR versions up to 13; onnx 1.23 writes 14 and
        # these models use nothing newer than IR 8.
        model.ir_version = min(model.ir_version, 8)
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = sess.run(None, feeds)[0]
        err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
        ours = _median_ms(lambda: vm["main"](*args), dev.sync)
        entry = {"compile_s": round(compile_s, 2), "rel_err": err, "ours_ms": round(ours, 3)}
        # where the time goes: VirtualMachine.profile syncs the GPU around each call
        report = vm.profile("main", *args)
        entry["profile_total_ms"] = round(report.total_us / 1e3, 3)
        entry["top_kernels_ms"] = [(c["Name"], round(c["Duration (us)"] / 1e3, 3), round(c["Percent"], 1))
                                   for c in report.top(5)]
        try:
            entry["torch_eager_ms"] = round(_torch_peer(name, feeds), 3)
            entry["ratio_ours_over_torch"] = round(ours / entry["torch_eager_ms"], 2)
        except Exception as e:  # noqa: BLE001 - the peer's failure is a figure missing, said
            entry["torch_error"] = "%s: %s" % (type(e).__name__, e)
        detail[name] = entry
        print(name, entry, flush=True)
        if not err <= 1e-3:
            raise AssertionError("%s: relative error %g against onnxruntime" % (name, err))
    return detail


CHECKS = [check_models_on_gpu]
