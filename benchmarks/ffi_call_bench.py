#!/usr/bin/env python3
"""Python -> native call cost: our ctypes `tvm_ffi` vs raw ctypes vs apache-tvm-ffi (Cython).

    python3 benchmarks/ffi_call_bench.py [--ref-dir DIR] [--before DIR] [--number N]
                                         [--rounds R] [--json]

Prints ns per call, in one run, for: a no-argument nop, 3 ints, a string (the same one each
time, and two in turn), an already converted Tensor, a numpy array through DLPack, and C
calling a Python function (0 and 3 int args).
The columns:
  ours   this repository's tvm_ffi package calling a module built against our headers;
  raw    ctypes calling a plain C function of the same arity (no argtypes), compiled here;
  ref    apache-tvm-ffi 0.1.15.post2 calling the same module source built against its headers
         (from --ref-dir, default ~/.cache/tvm-stack/apache-tvm-ffi-0.1.15.post2, or installed
         by this script into a throwaway venv with `pip install apache-tvm-ffi==0.1.15.post2`);
  before (with --before DIR) another copy of our Python package, e.g. an older revision's
         `python` folder (`git archive REV python | tar -x -C DIR`), on the same library.
The ratios: ours/raw (the target is at most 2.5x: `ok` marks the cases that meet it), ours/ref
and, with --before, before/ours (the speedup).
Each implementation runs in its own subprocess (both packages are named tvm_ffi). Machines are
shared and noisy: compare the ratios printed, not absolute times across runs.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
REF_VERSION = "0.1.15.post2"

RAW_C = r"""
#include <stdint.h>
void nop(void) {}
int64_t add3(int64_t a, int64_t b, int64_t c) { return a + b + c; }
int64_t str1(const char* s) { return s[0]; }
int64_t ptr1(void* p) { return p != 0; }
int call4(void* h, void* args, int n, void* result) { return h == args && n == 0 && result == 0; }
int64_t call_repeat3(int64_t (*f)(int64_t, int64_t, int64_t), int64_t n) {
  int64_t last = 0;
  for (int64_t i = 0; i < n; ++i) last = f(1, 2, 3);
  return last;
}
void call_repeat0(void (*f)(void), int64_t n) {
  for (int64_t i = 0; i < n; ++i) f();
}
"""

MODULE_CC = r"""
#include <tvm/ffi/function.h>
namespace ffi = tvm::ffi;
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_nop(void*, const TVMFFIAny*, int32_t, TVMFFIAny*) {
  return 0;
}
static int64_t CallRepeat3(ffi::Function f, int64_t n) {
  int64_t last = 0;
  for (int64_t i = 0; i < n; ++i) last = f(int64_t{1}, int64_t{2}, int64_t{3}).cast<int64_t>();
  return last;
}
static void CallRepeat0(ffi::Function f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) f();
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_repeat3, CallRepeat3);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_repeat0, CallRepeat0);
"""

TARGET = 2.5  # ours / raw, per case (issue acceptance)
CASES = ["nop()", "nop(1, 2, 3)", "nop('hello')", "nop('hello'/'world')", "nop(tensor)",
         "nop(numpy via DLPack)", "C->Python f()", "C->Python f(1, 2, 3)"]


# ---------------------------------------------------------------------------------------------
# Timing (runs inside each subprocess)
# ---------------------------------------------------------------------------------------------
def _best_of(cases, number, rounds=7):
    """ns per call of each case: the best of `rounds` timings, cases interleaved round-robin
    so that load on a shared machine hits all of them alike. A case is (fn, calls per fn())."""
    import timeit

    best = {}
    for _ in range(rounds):
        for name, (fn, per_call) in cases.items():
            n = max(1, number // per_call)
            ns = timeit.timeit(fn, number=n) / (n * per_call) * 1e9
            best[name] = min(best.get(name, ns), ns)
    return best


def bench_ffi(tvm_ffi, module_path, number):
    """The cases through an FFI package (ours or apache-tvm-ffi): same code for both."""
    import numpy as np

    mod = tvm_ffi.load_module(module_path)
    nop = mod.nop
    arr = np.arange(16, dtype="float32")
    tensor = tvm_ffi.from_dlpack(arr)
    repeat3, repeat0 = mod.call_repeat3, mod.call_repeat0
    f3 = tvm_ffi.convert(lambda a, b, c: a)
    f0 = tvm_ffi.convert(lambda: None)
    inner = 1000
    return _best_of({
        "nop()": (lambda: nop(), 1),
        "nop(1, 2, 3)": (lambda: nop(1, 2, 3), 1),
        "nop('hello')": (lambda: nop("hello"), 1),
        # Two strings in turn: defeats any one-entry cache of the last string passed.
        "nop('hello'/'world')": (lambda: (nop("hello"), nop("world")), 2),
        "nop(tensor)": (lambda: nop(tensor), 1),
        "nop(numpy via DLPack)": (lambda: nop(arr), 1),
        "C->Python f()": (lambda: repeat0(f0, inner), inner),
        "C->Python f(1, 2, 3)": (lambda: repeat3(f3, inner), inner),
    }, number)


def bench_raw(raw_path, number):
    """The same arities through plain ctypes (no argtypes): the floor of a ctypes binding."""
    import ctypes

    import numpy as np

    lib = ctypes.CDLL(raw_path)
    nop, add3, str1, ptr1, call4 = lib.nop, lib.add3, lib.str1, lib.ptr1, lib.call4
    arr = np.arange(16, dtype="float32")
    vp = ctypes.c_void_p(arr.ctypes.data)
    cb3 = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(
        lambda a, b, c: a)
    cb0 = ctypes.CFUNCTYPE(None)(lambda: None)
    repeat3, repeat0 = lib.call_repeat3, lib.call_repeat0
    inner = 1000
    n = ctypes.c_int64(inner)
    frame_args, frame_res = (ctypes.c_int64 * 32)(), (ctypes.c_int64 * 2)()
    return _best_of({
        "floor": (lambda: call4(vp, frame_args, 0, frame_res), 1),
        "nop()": (lambda: nop(), 1),
        "nop(1, 2, 3)": (lambda: add3(1, 2, 3), 1),
        "nop('hello')": (lambda: str1(b"hello"), 1),
        "nop('hello'/'world')": (lambda: (str1(b"hello"), str1(b"world")), 2),
        "nop(tensor)": (lambda: ptr1(vp), 1),
        "nop(numpy via DLPack)": (lambda: ptr1(arr.ctypes), 1),
        "C->Python f()": (lambda: repeat0(cb0, n), inner),
        "C->Python f(1, 2, 3)": (lambda: repeat3(cb3, n), inner),
    }, number)


# ---------------------------------------------------------------------------------------------
# Orchestration
# ---------------------------------------------------------------------------------------------
def _compile(cmd):
    subprocess.run(cmd, check=True)


def _cxx():
    return os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or "c++"


def _cc():
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"


def _ours_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    return env


def _ours_flags(env):
    out = subprocess.run([sys.executable, "-m", "tvm_ffi.config", "--cxxflags", "--ldflags",
                          "--libs"], env=env, check=True, capture_output=True, text=True)
    return out.stdout.split()


def _ours_library(env):
    out = subprocess.run([sys.executable, "-c", "import tvm_ffi.libinfo as l; "
                          "print(l.find_libtvm_ffi())"],
                         env=env, check=True, capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1]


def _ensure_ref(ref_dir, workdir):
    """A folder with apache-tvm-ffi's `tvm_ffi` package: the given one, or a fresh venv."""
    if ref_dir and os.path.isfile(os.path.join(ref_dir, "tvm_ffi", "__init__.py")):
        return ref_dir, sys.executable
    venv = os.path.join(workdir, "ref-venv")
    try:
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        py = os.path.join(venv, "bin", "python")
        subprocess.run([py, "-m", "pip", "install", "-q", "apache-tvm-ffi==" + REF_VERSION],
                       check=True)
    except subprocess.CalledProcessError:
        return None, None
    return "", py


def _ref_paths(ref_dir, py):
    code = ("import os, tvm_ffi.libinfo as l; print(l.find_include_path()); "
            "print(l.find_dlpack_include_path()); print(os.path.dirname(l.find_libtvm_ffi()))")
    env = dict(os.environ)
    if ref_dir:
        env["PYTHONPATH"] = ref_dir
    out = subprocess.run([py, "-c", code], env=env, check=True, capture_output=True, text=True)
    return out.stdout.split("\n")[:3], env


def _run_child(py, env, impl, module_path, number):
    cmd = [py, os.path.abspath(__file__), "--child", impl, "--module", module_path,
           "--number", str(number)]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ref-dir", default=os.path.expanduser(
        "~/.cache/tvm-stack/apache-tvm-ffi-" + REF_VERSION))
    parser.add_argument("--before", metavar="DIR",
                        help="folder holding another tvm_ffi package to time as 'before'")
    parser.add_argument("--number", type=int, default=50000, help="calls per timing")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each implementation")
    parser.add_argument("--json", action="store_true", help="print one JSON line only")
    parser.add_argument("--child", choices=["ours", "ref", "raw", "before"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--module", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child == "raw":
        print(json.dumps(bench_raw(args.module, args.number)))
        return 0
    if args.child:
        import tvm_ffi

        print(json.dumps(bench_ffi(tvm_ffi, args.module, args.number)))
        return 0

    work = tempfile.mkdtemp(prefix="ffi_call_bench_")
    try:
        raw_c = os.path.join(work, "raw.c")
        raw_so = os.path.join(work, "libraw.so")
        with open(raw_c, "w") as f:
            f.write(RAW_C)
        _compile([_cc(), "-O2", "-shared", "-fPIC", raw_c, "-o", raw_so])
        mod_cc = os.path.join(work, "bench_module.cc")
        with open(mod_cc, "w") as f:
            f.write(MODULE_CC)

        ours_env = _ours_env()
        ours_so = os.path.join(work, "bench_ours.so")
        _compile([_cxx(), "-O2", "-shared", "-fPIC", mod_cc, "-o", ours_so]
                 + _ours_flags(ours_env))
        runs = {"raw": (sys.executable, dict(os.environ), raw_so),
                "ours": (sys.executable, ours_env, ours_so)}
        if args.before:
            # Same library and module as ours, other Python package.
            before_env = dict(ours_env)
            before_env["PYTHONPATH"] = os.path.abspath(args.before)
            before_env["TVM_FFI_LIBRARY_PATH"] = _ours_library(ours_env)
            runs["before"] = (sys.executable, before_env, ours_so)
        ref_dir, ref_py = _ensure_ref(args.ref_dir, work)
        if ref_py is not None:
            (inc, dlpack_inc, libdir), ref_env = _ref_paths(ref_dir, ref_py)
            ref_so = os.path.join(work, "bench_ref.so")
            _compile([_cxx(), "-O2", "-std=c++17", "-shared", "-fPIC", mod_cc, "-o", ref_so,
                      "-I" + inc, "-I" + dlpack_inc, "-L" + libdir, "-ltvm_ffi",
                      "-Wl,-rpath," + libdir])
            runs["ref"] = (ref_py, ref_env, ref_so)
        # The implementations take turns, a few times; each case keeps its best figure.
        results = {}
        for _ in range(args.rounds):
            for impl, (py, env, so) in runs.items():
                got = _run_child(py, env, impl, so, args.number)
                prev = results.setdefault(impl, got)
                for case, ns in got.items():
                    prev[case] = min(prev[case], ns)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if args.json:
        print(json.dumps(results))
        return 0
    has_ref, has_before = "ref" in results, "before" in results
    header = "%-24s %9s %9s %9s %14s %11s" % ("case (ns/call)", "ours", "raw", "ref",
                                              "ours/raw", "ours/ref")
    if has_before:
        header += " %9s %12s" % ("before", "before/ours")
    print(header)
    print("-" * len(header))
    for case in CASES:
        ours, raw = results["ours"][case], results["raw"][case]
        ref = results["ref"][case] if has_ref else float("nan")
        line = "%-24s %9.0f %9.0f %9.0f %9.2fx %-3s %10.2fx" % (
            case, ours, raw, ref, ours / raw, "ok" if ours / raw <= TARGET else "", ours / ref)
        if has_before:
            before = results["before"][case]
            line += " %9.0f %11.2fx" % (before, before / ours)
        print(line)
    floor = results["raw"]["floor"]
    print("\nFor scale: a raw ctypes call with TVMFFIFunctionCall's signature (void*, void*, int, "
          "void*),\nwhat a binding calling it directly pays per call: %.0f ns; ours nop() / that "
          "= %.2fx.\nOurs calls a zero-argument C entry point per call frame instead "
          "(ffi/src/python_support/call_helpers.cc)." % (floor, results["ours"]["nop()"] / floor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
