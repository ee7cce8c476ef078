"""Dumps what relax.build makes of each benchmark model, to diff before / after a compile-time
change (a change that only makes the compiler faster must leave these files as they were):

    PYTHONPATH=python python3 benchmarks/codegen_dump.py OUTDIR [--models squeezenet,resnet50]
    python3 benchmarks/codegen_dump.py --compare BEFORE AFTER

Per model (each in a process of its own, as model_bench.py builds them), in OUTDIR/<model>/:
  relax.txt       the Relax functions after the whole pipeline (the VM program's source)
  tir.txt         every PrimFunc handed to the TIR build, in name order (scheduled kernels)
  llvm.ll         the LLVM IR text libtvm_compiler generated, before LLVM's optimisation
  llvm_opt.ll     LLVM's optimised IR (when compiled in parts: one module per part, joined)

--compare: the first three must be equal as text; llvm_opt.ll function by function (each
function's body with string-constant, attribute-group and metadata numbers normalized, so
a different split into parts, which renumbers them, compares equal; parallel bodies are
named after the function that launches them).
"""

import argparse
import os
import re
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


def _functions(ir):
    """{function name: normalized body} of LLVM IR text (one or more modules joined)."""
    out = {}
    for m in re.finditer(r"^define [^\n]*?@([^(\s]+)\(.*?^}$", ir, re.M | re.S):
        body = re.sub(r"@\.str\.\d+", "@.str", m.group(0))
        body = re.sub(r"#\d+", "#", body)
        body = re.sub(r"!\d+", "!", body)
        out[m.group(1)] = body
    # parallel bodies are numbered across the module (__tvm_parallel_lambda_<kernel>_<k>):
    # renamed after the function that launches them, in the order it does
    rename = {}
    for name, body in out.items():
        if not name.startswith("__tvm_parallel_lambda_"):
            for ref in re.findall(r"@(__tvm_parallel_lambda_[\w.]+)", body):
                rename.setdefault(ref, "%s.parallel%d" % (name, sum(v.startswith(name + ".") for v in rename.values())))
    pattern = re.compile(r"__tvm_parallel_lambda_[\w.]+")
    return {rename.get(k, k): pattern.sub(lambda m: rename.get(m.group(0), m.group(0)), v) for k, v in out.items()}


def compare(before, after):
    """Lines saying, per model and file, whether `after` generates what `before` did."""
    same = True
    for model in sorted(os.listdir(before)):
        for fname in ("relax.txt", "tir.txt", "llvm.ll", "llvm_opt.ll"):
            a, b = (os.path.join(d, model, fname) for d in (before, after))
            if not os.path.exists(b):
                print("%-20s %-12s missing in %s" % (model, fname, after))
                same = False
                continue
            ta, tb = open(a).read(), open(b).read()
            if fname == "llvm_opt.ll":
                fa, fb = _functions(ta), _functions(tb)
                diff = sorted(k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k))
                verdict = "same %d functions" % len(fa) if not diff else \
                    "DIFFERS in %d of %d functions: %s" % (len(diff), len(fa), ", ".join(diff[:5]))
            else:
                diff = ta != tb
                verdict = "same" if not diff else "DIFFERS"
            same = same and not diff
            print("%-20s %-12s %s" % (model, fname, verdict))
    return same


def main():
    import model_bench

    if sys.argv[1:2] == ["--compare"]:
        sys.exit(0 if compare(sys.argv[2], sys.argv[3]) else 1)
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
