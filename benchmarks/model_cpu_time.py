"""One-thread CPU time of models compiled with the default pipeline: for comparing two trees
(or two commits) on a machine that is not quiet. The calling thread's CPU time
(time.thread_time) at TVM_NUM_THREADS=1 counts only the model's own work, so other load
changes it far less than wall time; run the two trees alternately and compare ratios.

    PYTHONPATH=<tree>/python python3 benchmarks/model_cpu_time.py [--repeat 5] [--profile] MODEL...

MODEL: mlp (784-512-512-10 with a symbolic batch, run at batch 1; mlp64 at batch 64), bert
(the BERT-class encoder, bert_model.py; bert8 for batch 8) or an ImageNet
architecture of imagenet_models.py (squeezenet, shufflenet, resnet50, densenet121,
inception_v1, inception_v2, vgg19). Prints the best time and the compile's CPU seconds;
--profile adds the slowest kernels (VirtualMachine.profile, wall time, best of 5 per kernel,
summed over a kernel's calls).
"""

import argparse
import os
import sys
import time

os.environ["TVM_NUM_THREADS"] = "1"

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "compiler_py"))


def load(name):
    """(ModelProto, batch the symbolic batch dimension is run at)."""
    if name.startswith("mlp"):
        from test_onnx_frontend import mlp_model

        return mlp_model(), int(name[3:] or 1)
    if name.startswith("bert"):
        from bert_model import bert_encoder_model

        model = bert_encoder_model(batch=int(name[4:] or 1))
    else:
        from imagenet_models import imagenet_model

        model = imagenet_model(name)
    return (model[0] if isinstance(model, tuple) else model), 1


def feeds_of(model, batch):
    import numpy as np

    import tvm

    rng = np.random.default_rng(0)
    inits = {t.name for t in model.graph.initializer}
    out = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        dims = [d.dim_value or batch for d in vi.type.tensor_type.shape.dim]
        dtype = {1: "float32", 6: "int32", 7: "int64"}.get(vi.type.tensor_type.elem_type, "float32")
        value = rng.standard_normal(dims) if dtype == "float32" else np.ones(dims)
        out.append(tvm.runtime.tensor(value.astype(dtype)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("models", nargs="+")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()

    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    for name in args.models:
        model, batch = load(name)
        t0 = time.process_time()
        ex = tvm.compile(from_onnx(model), "llvm")
        compile_cpu = time.process_time() - t0
        vm = relax.VirtualMachine(ex, tvm.cpu())
        feeds = feeds_of(model, batch)
        vm["main"](*feeds)
        best = float("inf")
        for _ in range(args.repeat):
            t = time.thread_time()
            vm["main"](*feeds)
            best = min(best, time.thread_time() - t)
        print("%s: %.2f ms (compile CPU %.1f s)" % (name, best * 1e3, compile_cpu), flush=True)
        if args.profile:
            kernels = {}
            for _ in range(5):
                for call in vm.profile("main", *feeds).calls:
                    kernels[call["Name"]] = min(kernels.get(call["Name"], float("inf")), call["Duration (us)"])
            total = sum(kernels.values())
            for kname, us in sorted(kernels.items(), key=lambda kv: -kv[1])[:10]:
                print("  %-48s %8.0f us %5.1f%%" % (kname, us, 100 * us / total))


if __name__ == "__main__":
    main()
