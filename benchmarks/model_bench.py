"""Models compiled with the Relax default pipeline vs onnxruntime vs apache-tvm 0.27, in one
run: compile time and latency (best of N) with 1 and 2 threads.

    PYTHONPATH=python python3 benchmarks/model_bench.py [--repeat 50] [--rounds 2] [--no-apache-tvm | --apache-tvm-compile-only]

    PYTHONPATH=python python3 benchmarks/model_bench.py --profile --models squeezenet,resnet50

Each side (ours, onnxruntime, apache-tvm) runs each model in a process of its own; ours and
onnxruntime do so --rounds times (default 2, alternating), each latency the best over the
rounds and the compile time the first round's (apache-tvm runs once); the
1-minute load average before each model is printed beside it, and parallel_probe.c's figure
(whether two threads got two cores' worth of arithmetic just then: on a 2-vCPU host it moved
between 1.0 and 1.9 within seconds, and every side's two-thread latency with it). Compile time runs to a
runnable model: the import, the build and the VM's creation (onnxruntime: the session's),
wall seconds and CPU seconds (the process and its children: the linker); "build s" is the
build call alone (import and relax.build / tvm.compile). The two differ for apache-tvm:
its build stops at optimised LLVM IR and LLVM generates the machine code when the VM is
created (apache_tvm_peer.py); ours generates and loads it in relax.build. Ours is also
broken down by phase (compile_breakdown.py, from
tvm.ir.instrument.PassTimingInstrument). `--profile` adds the five
slowest kernels of ours per model (VirtualMachine.profile, 1 thread).

Models (ONNX; built by tests/compiler_py/test_onnx_frontend.py's builders, bert_model.py and
imagenet_models.py):
  mlp        784-512-512-10 (Gemm, Relu, Softmax), batch 1 and 64
  encoder    a transformer encoder block, seq 128, d 256, 4 heads, FFN 1024 (MatMul, Softmax,
             LayerNormalization, Erf GELU, a mask)
  resnet     a ResNet-style CNN (conv-bn-relu, max pool, two residual blocks, global pool,
             Gemm) on 3x16x16, batch 8
  resnet18   ResNet-18's layout (7x7/2 stem, max pool, 4 stages of 2 basic blocks with 64,
             128, 256, 512 channels, global pool, FC 1000) on 3x64x64, batch 1 (~150 MFLOP)
  bert6      a BERT-class encoder: 6 layers, hidden 384, 6 heads, FFN 1536, seq 128, batch 1
             and 8 (padded sequences, additive mask)
  squeezenet, shufflenet, resnet50, densenet121, inception_v1/v2, vgg19: the onnx package's
             model-test architectures at 224x224, batch 1, seeded random weights
Threads: ours through runtime.SetNumThreads, onnxruntime through intra_op_num_threads,
apache-tvm through TVM_NUM_THREADS (its process reads it at start).

apache-tvm 0.27 runs in a throwaway venv (APACHE_TVM_PYTHON, default /tmp/tvmref/bin/python,
created with `python3 -m venv /tmp/tvmref && /tmp/tvmref/bin/pip install
apache-tvm==0.27.0.post1 onnx` when missing) through benchmarks/apache_tvm_peer.py: its own
ONNX frontend and `tvm.compile(mod, "llvm -mcpu=<host>")`, i.e. its default pipeline without
tuning. Every output is checked against onnxruntime's.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "compiler_py"))


def _cpu_s():
    """CPU seconds of this process and its finished children (LLVM workers, the C compiler)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _best(fn, repeat):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def resnet18_model(hw=64):
    """ResNet-18 (basic blocks, batch norm, 1x1 projection shortcuts) as an ONNX model."""
    from test_onnx_frontend import _Graph

    g = _Graph(18)
    y = g.conv_bn_relu("x", 3, 64, k=7, stride=2)
    y = g.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in ((64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)):
        h = g.conv_bn_relu(y, cin, cout, stride=stride)
        h = g.conv_bn_relu(h, cout, cout, relu=False)
        skip = y if (cin == cout and stride == 1) else g.conv_bn_relu(y, cin, cout, k=1, stride=stride, relu=False)
        y = g.op("Relu", [g.op("Add", [h, skip])])
        cin = cout
    y = g.op("Flatten", [g.op("GlobalAveragePool", [y])], axis=1)
    w = g.init((g.rng.standard_normal((1000, 512)) * 0.05).astype("float32"))
    g.op("Gemm", [y, w, g.init(np.zeros(1000, "float32"))], transB=1)
    return g.model("y", [1, 3, hw, hw], [1, 1000])


def _parallel_probe(tmp):
    """A callable printing parallel_probe.c's figure (2.00: two threads got one core's worth,
    1.00: two free cores), or None without a C compiler."""
    cc = os.environ.get("CC") or "cc"
    exe = os.path.join(tmp, "parallel_probe")
    built = subprocess.run([cc, "-O2", "-pthread", os.path.join(HERE, "parallel_probe.c"), "-o", exe],
                           capture_output=True)
    if built.returncode != 0:
        return None
    return lambda: subprocess.run([exe], capture_output=True, text=True).stdout.strip() or "?"


def _peer_python():
    """The apache-tvm venv's interpreter, made on first use; None when it cannot be had."""
    py = os.environ.get("APACHE_TVM_PYTHON", "/tmp/tvmref/bin/python")
    if not os.path.exists(py) and "APACHE_TVM_PYTHON" not in os.environ:
        venv = os.path.dirname(os.path.dirname(py))
        subprocess.run([sys.executable, "-m", "venv", venv], check=False, capture_output=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "apache-tvm==0.27.0.post1", "numpy", "onnx"],
                       check=False, capture_output=True)
    ok = os.path.exists(py) and subprocess.run([py, "-c", "import tvm, onnx"],
                                               capture_output=True).returncode == 0
    return py if ok else None


def apache_tvm(py, model, feeds, threads, repeat, tmp):
    """{"compile_s", "build_s", "compile_cpu_s", "ms", "out"} of apache-tvm on `model` ("ms" and
    "out" None when repeat is 0), or a string saying why there is none."""
    import llvmlite.binding as llvm

    mpath, ipath, opath = (os.path.join(tmp, n) for n in ("m.onnx", "in.npz", "out.npz"))
    with open(mpath, "wb") as f:
        f.write(model.SerializeToString())
    np.savez(ipath, **feeds)
    env = dict(os.environ, TVM_NUM_THREADS=str(threads))
    env.pop("PYTHONPATH", None)
    p = subprocess.run([py, os.path.join(HERE, "apache_tvm_peer.py"), mpath, ipath, opath, str(repeat),
                        llvm.get_host_cpu_name()], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return "failed: %s" % (p.stderr.strip().splitlines() or ["?"])[-1][:160]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    res.setdefault("ms", None)
    res["out"] = np.load(opath)["y"] if repeat else None
    return res


def _models():
    """name -> builder of (ModelProto, feeds): the matrix-shaped models and the CNNs."""
    from bert_model import bert_encoder_model
    from imagenet_models import imagenet_model
    from test_onnx_frontend import attention_block_model, mlp_model, resnet_model

    rng = np.random.default_rng(0)
    models = {
        "mlp b1": lambda: (mlp_model((784, 512, 512, 10)), {"x": rng.random((1, 784), "float32")}),
        "mlp b64": lambda: (mlp_model((784, 512, 512, 10)), {"x": rng.random((64, 784), "float32")}),
        "encoder s128 d256": lambda: (attention_block_model(seq=128, d=256, heads=4),
                                      {"x": rng.standard_normal((1, 128, 256)).astype("float32"),
                                       "mask": np.ones((1, 128), "float32")}),
        "bert6 d384 b1": lambda: bert_encoder_model(layers=6, hidden=384, heads=6, seq=128, batch=1),
        "bert6 d384 b8": lambda: bert_encoder_model(layers=6, hidden=384, heads=6, seq=128, batch=8),
        "resnet b8": lambda: (resnet_model(), {"x": rng.standard_normal((8, 3, 16, 16)).astype("float32")}),
        "resnet18 64x64 b1": lambda: (resnet18_model(), {"x": rng.standard_normal((1, 3, 64, 64)).astype("float32")}),
    }
    for name in ("squeezenet", "shufflenet", "resnet50", "densenet121", "inception_v1", "inception_v2", "vgg19"):
        models[name] = (lambda n: lambda: imagenet_model(n))(name)
    return models


DEFAULT_MODELS = ["mlp b1", "mlp b64", "encoder s128 d256", "bert6 d384 b1", "bert6 d384 b8", "squeezenet",
                  "shufflenet", "resnet50", "densenet121", "inception_v2", "vgg19"]


def worker(args):
    """One side (ours or onnxruntime) on one model, in a process of its own: compile (ours) or
    session creation, 1 and 2 threads, best of --repeat; JSON on the last line."""
    import onnx

    model = onnx.load(args.model_file)
    feeds = dict(np.load(args.feeds))
    out = {"ms": {}}
    if args.worker == "ours":
        import tvm
        import tvm_ffi
        from tvm import relax
        from tvm.ir.instrument import PassTimingInstrument, pass_profiles, timed_phase
        from tvm.relax.frontend.onnx import from_onnx

        from compile_breakdown import self_times

        t, cpu = time.time(), _cpu_s()
        with tvm.transform.PassContext(instruments=[PassTimingInstrument()]):
            with timed_phase("relax.frontend.from_onnx"):
                mod = from_onnx(model)
            ex = relax.build(mod, "llvm")
            out["build_s"] = time.time() - t
            with timed_phase("relax.VirtualMachine"):
                vm = relax.VirtualMachine(ex, tvm.cpu())
            out["phases"] = self_times(pass_profiles())
        out["compile_s"], out["compile_cpu_s"] = time.time() - t, _cpu_s() - cpu
        inputs = [tvm.runtime.tensor(v) for v in feeds.values()]
        set_threads = tvm_ffi.get_global_func("runtime.SetNumThreads")
        for threads in (1, 2):
            set_threads(threads)
            result = vm["main"](*inputs)
            out["ms"][threads] = _best(lambda: vm["main"](*inputs), args.repeat)
        np.save(args.output, result.numpy())
        if args.profile:
            set_threads(1)
            reports = [vm.profile("main", *inputs) for _ in range(3)]
            best = min(reports, key=lambda r: r.total_us)
            out["top"] = [(c["Name"], c["Duration (us)"] / 1e3, c["Percent"]) for c in best.top(5)]
    else:
        import onnxruntime as ort

        for threads in (1, 2):
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            t, cpu = time.time(), _cpu_s()
            sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
            out.setdefault("compile_s", time.time() - t)
            out.setdefault("build_s", out["compile_s"])
            out.setdefault("compile_cpu_s", _cpu_s() - cpu)
            result = sess.run(None, feeds)[0]
            out["ms"][threads] = _best(lambda: sess.run(None, feeds), args.repeat)
        np.save(args.output, result)
    print(json.dumps(out))


def _run_worker(side, mpath, fpath, opath, repeat, profile):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", side, "--model-file", mpath, "--feeds", fpath,
           "--output", opath, "--repeat", str(repeat)] + (["--profile"] if profile else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return "failed: %s" % (p.stderr.strip().splitlines() or ["?"])[-1][:160]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    res["ms"] = {int(k): v for k, v in res["ms"].items()}
    res["out"] = np.load(opath)
    return res


def _best_of(first, later):
    """`first`'s result with each thread count's latency the better of the two runs' (a
    failed run leaves `first` as it is)."""
    if not isinstance(first, dict) or not isinstance(later, dict):
        return first
    return dict(first, ms={t: min(first["ms"][t], later["ms"][t]) for t in first["ms"]})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2,
                        help="worker processes per side and model, one after the other; latency is the best "
                             "over them (a 2-vCPU host gives two threads one core's worth for seconds at a time)")
    parser.add_argument("--no-apache-tvm", action="store_true")
    parser.add_argument("--apache-tvm-compile-only", action="store_true",
                        help="apache-tvm's compile time only (its default build's kernels are plain loop nests: "
                             "ResNet-50 runs ~15 s a call, so timing them takes most of the run)")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="comma-separated; also: resnet b8, resnet18 64x64 b1, inception_v1")
    parser.add_argument("--profile", action="store_true", help="the five slowest kernels of ours per model")
    parser.add_argument("--worker", choices=["ours", "ort"], help=argparse.SUPPRESS)
    parser.add_argument("--model-file", help=argparse.SUPPRESS)
    parser.add_argument("--feeds", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    builders = _models()
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in builders]
    if unknown:
        parser.error("unknown models %s (known: %s)" % (unknown, ", ".join(builders)))
    peer = None if args.no_apache_tvm else _peer_python()
    print("latency in ms, best of %d calls in each of %d rounds (a process per side, model and round); "
          "ratio = ours / peer (below 1: ours faster); load = 1-minute load average before the model's runs "
          "(%d CPUs); 2cpu = parallel_probe.c before the model's runs (the time two threads take at once over one alone: 1.00 two free cores, "
          "2.00 one core's worth)" % (args.repeat, args.rounds, os.cpu_count()))
    print("apache-tvm 0.27: %s" % ("measured (%s)" % peer if peer else "not measured"))
    head = "%-18s %-10s %9s %7s %7s | %9s %7s | %9s %7s | %7s | %5s %5s"
    print(head % ("model", "compiler", "compile s", "cpu s", "build s", "1 thread", "ratio", "2 threads", "ratio",
                  "2t/1t", "load", "2cpu"))
    tops, breakdowns = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        probe = _parallel_probe(tmp)
        for name in names:
            model, feeds = builders[name]()
            mpath, fpath = os.path.join(tmp, "m.onnx"), os.path.join(tmp, "in.npz")
            with open(mpath, "wb") as f:
                f.write(model.SerializeToString())
            np.savez(fpath, **feeds)
            load = os.getloadavg()[0]
            two_cpus = probe() if probe else "-"
            ort_res = _run_worker("ort", mpath, fpath, os.path.join(tmp, "ort.npy"), args.repeat, False)
            ours = _run_worker("ours", mpath, fpath, os.path.join(tmp, "ours.npy"), args.repeat, args.profile)
            for _ in range(args.rounds - 1):
                # Later rounds: fresh processes again, each side's latency the best over the
                # rounds (compile time and outputs stay the first round's)
                ort_res = _best_of(ort_res, _run_worker("ort", mpath, fpath, os.path.join(tmp, "ort.npy"),
                                                        args.repeat, False))
                ours = _best_of(ours, _run_worker("ours", mpath, fpath, os.path.join(tmp, "ours.npy"),
                                                  args.repeat, False))
            rows = [("ours", ours), ("onnxruntime", ort_res)]
            if peer and args.apache_tvm_compile_only:
                rows.append(("apache-tvm", apache_tvm(peer, model, feeds, 1, 0, tmp)))
            elif peer:
                runs = [apache_tvm(peer, model, feeds, t, args.repeat, tmp) for t in (1, 2)]
                bad = [r for r in runs if isinstance(r, str)]
                rows.append(("apache-tvm", bad[0] if bad else dict(runs[0], ms={1: runs[0]["ms"], 2: runs[1]["ms"]})))
            ref = ort_res["out"] if isinstance(ort_res, dict) else None
            for who, r in rows:
                if isinstance(r, dict) and ref is not None and who != "onnxruntime" and r["ms"] is not None:
                    np.testing.assert_allclose(r["out"], ref, rtol=1e-3, atol=1e-3,
                                               err_msg="%s on %s differs from onnxruntime" % (who, name))
            for k, (who, r) in enumerate(rows):
                label = name if k == 0 else ""
                if isinstance(r, str):
                    print(head % (label, who, "-", "", "", r, "", "", "", "", "", ""))
                    continue
                cells = [label, who, "%.2f" % r["compile_s"], "%.2f" % r["compile_cpu_s"], "%.2f" % r["build_s"]]
                if r["ms"] is None:  # compile only
                    print(head % tuple(cells + ["-", "", "-", "", "", "", ""]))
                    continue
                for t in (1, 2):
                    ratio = "" if who == "ours" or not isinstance(ours, dict) else "%.2fx" % (ours["ms"][t] / r["ms"][t])
                    cells += ["%.3f" % r["ms"][t], ratio]
                cells += ["%.2f" % (r["ms"][1] / r["ms"][2]), "%.1f" % load if k == 0 else "", two_cpus if k == 0 else ""]
                print(head % tuple(cells))
            sys.stdout.flush()
            if isinstance(ours, dict) and "top" in ours:
                tops[name] = ours["top"]
            if isinstance(ours, dict):
                breakdowns[name] = ours
    if breakdowns:
        from compile_breakdown import format_breakdown

        print("\nCompile time of ours by phase (wall seconds of each step itself, share of the build; "
              "LLVM parts in threads count as the wait for them):")
        for name, r in breakdowns.items():
            print("%s: %.2f s wall, %.2f s CPU with child processes" % (name, r["compile_s"], r["compile_cpu_s"]))
            print(format_breakdown(r["phases"]))
    if tops:
        print("\nThe five slowest kernels of ours per model (1 thread; ms, share of the call):")
        for name, top in tops.items():
            print("  %s: %s" % (name, "; ".join("%s %.2f (%.0f%%)" % tuple(t) for t in top)))


if __name__ == "__main__":
    main()
