"""Dumps what relax.build makes of each benchmark model, to diff before / after a compile-time
change (a change that only makes the compiler faster must leave these files as they were):

    PYTHONPATH=python python3 benchmarks/codegen_dump.py OUTDIR [--models squeezenet,resnet50]
    diff -r BEFORE AFTER

Per model (each in a process of its own, as model_bench.py builds them), in OUTDIR/<model>/:
  relax.txt       the Relax functions after the whole pipeline (the VM program's source)
  tir.txt         every PrimFunc handed to the TIR build, in name order (scheduled kernels)
  llvm.ll         the LLVM IR text libtvm_compiler generated, before LLVM's optimisation
  llvm_opt.ll     LLVM's optimised IR (when compiled in parts: one module per part, joined)
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)


def dump(name, outdir):
    """Builds model `name` of model_bench and writes its four files under outdir/name."""
    import model_bench
    from tvm import relax
    from tvm.ir import IRModule
    from tvm.relax import expr as rx
    from tvm.relax.frontend.onnx import from_onnx
    from tvm.target import Target
    from tvm.tir.build import build as tir_build

    model, _ = model_bench._models()[name]()
    target = Target("llvm")
    mod = from_onnx(model)
    pipeline = relax.get_default_pipeline(target)
    with target:
        mod = pipeline(mod)
    prims = {str(k): f for k, f in mod.functions.items() if not isinstance(f, rx.Function)}
    graphs = {str(k): f for k, f in mod.functions.items() if isinstance(f, rx.Function)}
    exe = tir_build(IRModule(prims), target)
    art = exe.host_build
    path = os.path.join(outdir, name.replace(" ", "_"))
    os.makedirs(path, exist_ok=True)
    files = {
        "relax.txt": "\n".join("# %s\n%s" % (k, graphs[k]) for k in sorted(graphs)),
        "tir.txt": "\n".join("# %s\n%s" % (k, prims[k]) for k in sorted(prims)),
        "llvm.ll": art.llvm_ir,
        "llvm_opt.ll": art.optimized_ir,
    }
    for fname, text in files.items():
        with open(os.path.join(path, fname), "w") as f:
            f.write(text)


def main():
    import model_bench

    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--models", default=",".join(model_bench.DEFAULT_MODELS + ["inception_v1"]))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return dump(args.one, args.outdir)
    for name in [n.strip() for n in args.models.split(",") if n.strip()]:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), args.outdir, "--one", name])
        print("%-20s %s" % (name, "ok" if done.returncode == 0 else "FAILED (%d)" % done.returncode),
              flush=True)


if __name__ == "__main__":
    main()
