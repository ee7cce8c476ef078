"""The command line, in the spirit of tvmc:

    python -m tvm.driver compile model.onnx -o model.so [--target llvm] \\
        [--input-shapes "x:1,784;mask:1,128"] [--pipeline default]
    python -m tvm.driver run model.so --inputs inputs.npz [--outputs out.npz] [--function main]
    python -m tvm.driver info model.so

`compile` shows each stage with its time on stderr; `run` takes inputs by name from an .npz
(the parameters of the compiled function, in order, when the names do not match), prints
each output's shape, dtype and a checksum, and saves them with --outputs. Bad files and
arguments give one clear line and exit status 2.
"""

import argparse
import os
import sys
import time


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def _progress(msg, start=[None]):  # noqa: B006 - a timer shared by the calls
    now = time.time()
    if start[0] is None:
        start[0] = now
    sys.stderr.write("[%6.1fs] %s\n" % (now - start[0], msg))
    sys.stderr.flush()


def parse_shapes(text):
    """'x:1,784;mask:1,128' -> {"x": [1, 784], "mask": [1, 128]} (a dimension may be a name)."""
    out = {}
    if not text:
        return out
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        if ":" not in item:
            raise CliError("--input-shapes: expected name:d0,d1,... got %r" % item)
        name, dims = item.rsplit(":", 1)
        shape = []
        for d in dims.replace("x", ",").split(","):
            d = d.strip()
            if not d:
                continue
            shape.append(int(d) if d.lstrip("-").isdigit() else d)
        out[name.strip()] = shape
    return out


def cmd_compile(args):
    from .. import relax
    from ..ir import transform

    if not os.path.isfile(args.model):
        raise CliError("cannot read %s: no such file" % args.model)
    ext = os.path.splitext(args.model)[1].lower()
    if ext != ".onnx":
        raise CliError("%s: unknown model format %r (supported: .onnx)" % (args.model, ext))
    _progress("importing %s" % args.model)
    try:
        import onnx
    except ImportError:
        raise CliError("compiling .onnx files needs the onnx package (pip install onnx)")
    try:
        model = onnx.load(args.model)
    except Exception as err:  # noqa: BLE001 - protobuf's own errors
        raise CliError("%s is not a readable ONNX file (%s)" % (args.model, str(err).splitlines()[0]))
    from ..relax.frontend.onnx import from_onnx

    try:
        mod = from_onnx(model, shape_dict=parse_shapes(args.input_shapes))
    except (ValueError, TypeError, NotImplementedError) as err:
        raise CliError(str(err))
    funcs = [f for f in mod.functions.values() if isinstance(f, relax.Function)]
    _progress("imported: %d graph function(s)" % len(funcs))
    _progress("running the %r pipeline" % args.pipeline)

    class PassProgress(transform.PassInstrument):
        """Reports each pass as it starts (legalization, fusion and scheduling of big models
        are the long ones)."""

        def run_before_pass(self, mod, info):
            if info.name not in ("relax.default", "relax.zero"):
                _progress("  pass %s" % info.name)

    with transform.PassContext(instruments=[PassProgress()]):
        mod = relax.get_pipeline(args.pipeline)(mod)
    kernels = len(mod.functions) - len(funcs)
    _progress("compiling %d kernel(s) for %s" % (kernels, args.target))
    ex = relax.build(mod, args.target, relax_pipeline=None)
    _progress("exporting %s" % args.output)
    ex.export_library(args.output)
    _progress("done: %s (%d bytes)" % (args.output, os.path.getsize(args.output)))
    return 0


def cmd_run(args):
    import numpy as np
    import tvm_ffi

    from .. import runtime
    from ..runtime.vm import VirtualMachine

    if not os.path.isfile(args.library):
        raise CliError("cannot read %s: no such file" % args.library)
    try:
        lib = tvm_ffi.load_module(os.path.abspath(args.library))
    except Exception as err:  # noqa: BLE001 - the loader's error is the message
        raise CliError("cannot load %s: %s" % (args.library, str(err).splitlines()[-1]))
    if lib.kind != "relax.VMExecutable":
        raise CliError("%s holds no compiled model (its root module is %r, not a VM executable)"
                       % (args.library, lib.kind))
    vm = VirtualMachine(lib, runtime.cpu())
    inputs = []
    if args.inputs:
        if not os.path.isfile(args.inputs):
            raise CliError("cannot read %s: no such file" % args.inputs)
        try:
            data = np.load(args.inputs)
        except Exception as err:  # noqa: BLE001 - numpy's own errors
            raise CliError("%s is not an .npz file (%s)" % (args.inputs, err))
        names = list(lib["vm_function_params"](args.function)) if _has(lib, "vm_function_params") else []
        keys = list(data.keys())
        order = names if names and set(names) <= set(keys) else keys
        inputs = [runtime.tensor(np.ascontiguousarray(data[k])) for k in order]
    try:
        out = vm[args.function](*inputs)
    except AttributeError:
        raise CliError("%s has no function %r" % (args.library, args.function))
    except (ValueError, TypeError) as err:
        raise CliError("running %s: %s" % (args.function, str(err).splitlines()[-1]))
    outs = list(out) if isinstance(out, (list, tuple, tvm_ffi.Array)) else [out]
    arrays = {}
    for i, o in enumerate(outs):
        a = o.numpy()
        arrays["output_%d" % i] = a
        print("output_%d: shape %s dtype %s sum %.6g" % (i, a.shape, a.dtype, float(a.astype("float64").sum())))
    if args.outputs:
        np.savez(args.outputs, **arrays)
    return 0


def _has(mod, name):
    try:
        return mod.implements_function(name)
    except Exception:  # noqa: BLE001
        return False


def cmd_info(args):
    import tvm_ffi

    if not os.path.isfile(args.library):
        raise CliError("cannot read %s: no such file" % args.library)
    lib = tvm_ffi.load_module(os.path.abspath(args.library))
    print("root module:", lib.kind)
    print("imports:", ", ".join(m.kind for m in lib.imports) or "none")
    if lib.kind == "relax.VMExecutable":
        print(lib["as_text"]())
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tvm.driver", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compile", help="compile a model file into one .so")
    c.add_argument("model")
    c.add_argument("-o", "--output", required=True)
    c.add_argument("--target", default="llvm")
    c.add_argument("--input-shapes", default="")
    c.add_argument("--pipeline", default="default", choices=["default", "zero"])
    c.set_defaults(fn=cmd_compile)
    r = sub.add_parser("run", help="run a compiled model on inputs from an .npz")
    r.add_argument("library")
    r.add_argument("--inputs")
    r.add_argument("--outputs")
    r.add_argument("--function", default="main")
    r.set_defaults(fn=cmd_run)
    i = sub.add_parser("info", help="what a compiled .so holds")
    i.add_argument("library")
    i.set_defaults(fn=cmd_info)
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except CliError as err:
        sys.stderr.write("error: %s\n" % err)
        return 2


if __name__ == "__main__":
    sys.exit(main())
