"""The apache-tvm 0.27 side of test_cuda_blob_apache_tvm.py, run in its own interpreter with
only the apache-tvm folder on PYTHONPATH (its `tvm`/`tvm_ffi` are not ours) and the fake
libcuda.so.1 on LD_LIBRARY_PATH, so that its libtvm_runtime_cuda.so loads. Prints one JSON line.

    apache_tvm_cuda_peer.py load OUT_DIR BLOB...   each blob through ffi.Module.load_from_bytes.cuda
    apache_tvm_cuda_peer.py compile OUT_DIR        a TE vadd for nvptx and cuda (NVRTC), exported
"""

import json
import os
import sys

import tvm
import tvm_ffi


def load(out_dir, paths):
    loader = tvm_ffi.get_global_func("ffi.Module.load_from_bytes.cuda")
    pack = tvm_ffi.get_global_func("runtime.ModulePackImportsToTensor")
    results = []
    for i, path in enumerate(paths):
        with open(path, "rb") as f:
            blob = f.read()
        mod = loader(blob)
        res = {"kind": mod.kind, "ptx": str(mod.inspect_source("ptx"))}
        func = mod.get_function("main_kernel")
        res["get_function"] = func is not None
        try:
            # Kernel args, then one int64 per launch tag; with the fake driver, no device.
            func(None, None, None, 8, 128)
            res["call_error"] = None
        except Exception as e:  # pylint: disable=broad-except
            res["call_error"] = "%s: %s" % (type(e).__name__, e)
        # Their serializer (the import tree export_library embeds, with `mod` as its root).
        packed = os.path.join(out_dir, "packed_%d.bin" % i)
        with open(packed, "wb") as f:
            f.write(pack(mod).numpy().tobytes())
        res["packed"] = packed
        results.append(res)
    return results


def vadd(n=1000, factor=128):
    from tvm import te  # pylint: disable=import-outside-toplevel

    a = te.placeholder((n,), name="A")
    b = te.placeholder((n,), name="B")
    c = te.compute((n,), lambda i: a[i] + b[i], name="C")
    sch = tvm.s_tir.Schedule(te.create_prim_func([a, b, c]))
    (i,) = sch.get_loops(sch.get_sblock("C"))
    bx, tx = sch.split(i, [None, factor])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return sch.mod


def compile_all(out_dir):
    results = {}
    for name, spec in [("nvptx", {"kind": "nvptx", "mcpu": "sm_90"}),
                       ("cuda", {"kind": "cuda", "arch": "sm_90"})]:
        target = tvm.target.Target(spec)
        with target:
            lib = tvm.compile(vadd(), target=target)
        path = os.path.join(out_dir, "their_%s.so" % name)
        lib.export_library(path)
        results[name] = path
    return results


def main():
    cmd, out_dir = sys.argv[1], sys.argv[2]
    out = {"tvm": tvm.__file__, "version": tvm.__version__, "tvm_ffi": tvm_ffi.__file__,
           "cuda_loader": tvm_ffi.get_global_func("ffi.Module.load_from_bytes.cuda",
                                                  allow_missing=True) is not None}
    if cmd == "load":
        out["results"] = load(out_dir, sys.argv[3:])
    elif cmd == "compile":
        out["results"] = compile_all(out_dir)
    else:
        raise SystemExit("unknown command %r" % cmd)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
