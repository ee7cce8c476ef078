"""CUDA module blobs between our stack and apache-tvm 0.27.0.post1, both directions, on a machine
without a GPU (docs/cuda.md "Interop with apache-tvm"; shared/reference/gpu_stack.md §5).

apache-tvm runs in its own interpreter (apache_tvm_cuda_peer.py) with only its install folder
($APACHE_TVM_DIR, tools/install_deps.sh) on PYTHONPATH. Its libtvm_runtime_cuda.so needs
libcudart.so.13 (the toolkit's, $CUDA_HOME/lib64) and libcuda.so.1: the fake driver
(runtime_cuda/tests/fake_driver, host-side logic only) on LD_LIBRARY_PATH stands in.

1. Our blob -> their loader: PTX (llvmlite) and cubin (NVRTC) modules from tvm.compile, taken
   from exe.device.blob and from the exported .so's __tvm_ffi__library_bin, load as kind "cuda"
   with the same PTX, their get_function finds the kernel, calling it fails cleanly (no GPU),
   and their serializer writes our bytes back unchanged.
2. Their compiler -> our loader: their export_library .so files for nvptx and cuda (NVRTC);
   the CUDA module in their __tvm_ffi__library_bin parses and loads in our runtime, and with
   the fake driver launches with the grid, block and arguments their host code implies; their
   whole .so runs in our process (host code through the context symbols libtvm_runtime
   registers).
"""

import ctypes
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import tvm
import tvm_ffi
from tvm import te
from tvm.driver import library_bin
from tvm.runtime.cuda_support import FunctionInfo, pack_module_blob, unpack_module_blob
from cuda_testing import FAKE_DRIVER, FakeDriver

APACHE_TVM_VERSION = "0.27.0.post1"
APACHE_TVM_DIR = os.environ.get("APACHE_TVM_DIR", "")
PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "apache_tvm_cuda_peer.py")
N, FACTOR = 1000, 128
HANDLE = (3, 64, 1)
VADD_INFO = FunctionInfo("main_kernel", [HANDLE] * 3, ["blockIdx.x", "threadIdx.x"], [0, 0, 0])


def _cudart_dir():
    home = os.environ.get("CUDA_HOME", "")
    for d in ("lib64", "lib"):
        if home and os.path.exists(os.path.join(home, d, "libcudart.so.13")):
            return os.path.join(home, d)
    pytest.fail("libcudart.so.13 (which apache-tvm's libtvm_runtime_cuda.so needs) not found "
                "under CUDA_HOME=%r" % home)


def run_peer(*args):
    """Runs apache_tvm_cuda_peer.py in apache-tvm's interpreter; its JSON output."""
    meta = os.path.join(APACHE_TVM_DIR, "apache_tvm-%s.dist-info" % APACHE_TVM_VERSION, "METADATA")
    if not os.path.exists(meta):
        pytest.fail("apache-tvm %s is not installed in APACHE_TVM_DIR=%r: run tools/install_deps.sh"
                    " (then `bazel sync --configure`)" % (APACHE_TVM_VERSION, APACHE_TVM_DIR))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TVM_", "PYTHON")) and k != "LD_PRELOAD"}
    env.update(
        PYTHONPATH=APACHE_TVM_DIR,
        LD_LIBRARY_PATH=os.pathsep.join([os.path.dirname(FAKE_DRIVER), _cudart_dir()]),
        CUDA_PATH=os.environ.get("CUDA_HOME", ""),
        TVM_CUDA_COMPILE_MODE="nvrtc",
        HOME=os.environ.get("TEST_TMPDIR", "/tmp"),
    )
    if os.environ.get("TVM_STACK_SANITIZE") == "1" and os.environ.get("LD_PRELOAD"):
        # --config=asan: the fake driver the peer loads is instrumented, so the peer needs the
        # sanitizer runtime first too (the runner's preload); leaks of the interpreter are off.
        env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
        env["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    proc = subprocess.run([sys.executable, PEER, *args], env=env, capture_output=True, text=True,
                          timeout=600, cwd=os.environ.get("TEST_TMPDIR"))
    assert proc.returncode == 0, "apache-tvm peer failed (rc %d):\n%s" % (proc.returncode,
                                                                         proc.stderr[-4000:])
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["version"] == APACHE_TVM_VERSION and out["tvm"].startswith(APACHE_TVM_DIR)
    assert out["tvm_ffi"].startswith(APACHE_TVM_DIR)  # theirs, not ours
    assert out["cuda_loader"], "apache-tvm's libtvm_runtime_cuda.so did not load"
    return out["results"]


def library_bin_of(path):
    """The __tvm_ffi__library_bin bytes of a shared library (a u64 payload length, then it)."""
    lib = ctypes.CDLL(os.path.abspath(path), mode=ctypes.RTLD_LOCAL)
    addr = ctypes.addressof(ctypes.c_char.in_dll(lib, "__tvm_ffi__library_bin"))
    (n,) = struct.unpack("<Q", ctypes.string_at(addr, 8))
    return ctypes.string_at(addr, 8 + n)


def cuda_payload(blob):
    """The one "cuda" module's bytes in a library blob, and the import tree."""
    indptr, flat, mods = library_bin.unpack(blob)
    payloads = [p for kind, p in mods if kind == "cuda"]
    assert len(payloads) == 1, mods
    return payloads[0], (indptr, flat, [kind for kind, _ in mods])


def our_vadd():
    a = te.placeholder((N,), name="A")
    b = te.placeholder((N,), name="B")
    c = te.compute((N,), lambda i: a[i] + b[i], name="C")
    sch = tvm.tir.Schedule(te.create_prim_func([a, b, c]))
    (i,) = sch.get_loops(sch.get_block("C"))
    bx, tx = sch.split(i, [None, FACTOR])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return sch.mod


def ptr(b):
    return struct.unpack("<Q", b)[0]


def device_vectors():
    dev = tvm.cuda(0)
    a = tvm.runtime.tensor(np.arange(N, dtype="float32"), dev)
    b = tvm.runtime.tensor(np.ones(N, dtype="float32"), dev)
    c = tvm.runtime.empty((N,), "float32", dev)
    return a, b, c


# ---- 1. our blob -> their loader --------------------------------------------------------------

@pytest.mark.parametrize("target,fmt", [("cuda -arch=sm_90", "ptx"),
                                        ("cuda -arch=sm_90 -device-compiler=nvrtc", "cubin")])
def test_our_blob_loads_in_apache_tvm(tmp_path, target, fmt):
    exe = tvm.compile(our_vadd(), target=target)
    blob = bytes(exe.device.blob)
    got_fmt, infos, code = unpack_module_blob(blob)
    assert got_fmt == fmt and infos == {"main_kernel": VADD_INFO}
    exported = str(tmp_path / "ours.so")
    exe.export_library(exported)
    from_so, tree = cuda_payload(library_bin_of(exported))
    assert from_so == blob and tree == ([0, 1, 1], [1], ["_lib", "cuda"])
    path = tmp_path / "ours.blob"
    path.write_bytes(from_so)

    (res,) = run_peer("load", str(tmp_path), str(path))
    assert res["kind"] == "cuda" and res["get_function"]
    if fmt == "ptx":
        assert res["ptx"] == exe.device.ptx and res["ptx"].encode() == code
    else:
        assert code[:4] == b"\x7fELF" and res["ptx"] == ""
    # No GPU: their CUDA runtime (libcudart over the fake) refuses the call; a clean exception.
    assert res["call_error"].startswith("RuntimeError: CUDA Runtime Error: cudaError"), res
    # Their serializer: an import tree rooted at our module, carrying our bytes unchanged.
    indptr, flat, mods = library_bin.unpack((tmp_path / "packed_0.bin").read_bytes())
    assert (indptr, flat, mods) == ([0, 0], [], [("cuda", blob)])


# ---- 2. their compiler -> our loader ----------------------------------------------------------

@pytest.fixture(scope="module")
def their_libs(tmp_path_factory):
    return run_peer("compile", str(tmp_path_factory.mktemp("apache_tvm")))


def load_ours(payload):
    mod = tvm_ffi.get_global_func("ffi.Module.load_from_bytes.cuda")(payload)
    assert mod.kind == "cuda"
    return mod


def check_launch(fake, a, b, c, num_params=3):
    launch = fake.last_launch()
    assert launch.name == b"main_kernel"
    assert list(launch.grid) == [(N + FACTOR - 1) // FACTOR, 1, 1]
    assert list(launch.block) == [FACTOR, 1, 1]
    assert launch.shared_mem_bytes == 0
    params = launch.param_bytes()
    assert [len(p) for p in params] == [8] * num_params
    assert [ptr(p) for p in params] == [a.data_ptr(), b.data_ptr(), c.data_ptr()]


def test_their_nvrtc_cubin_loads_and_launches_in_ours(their_libs):
    payload, tree = cuda_payload(library_bin_of(their_libs["cuda"]))
    assert tree == ([0, 1, 1], [1], ["_lib", "cuda"])
    fmt, infos, code = unpack_module_blob(payload)
    assert fmt == "cubin" and code[:4] == b"\x7fELF"
    assert infos == {"main_kernel": VADD_INFO}
    mod = load_ours(payload)
    func = mod.get_function("main_kernel")
    a, b, c = device_vectors()
    fake = FakeDriver()
    fake.reset()
    func(a, b, c, (N + FACTOR - 1) // FACTOR, FACTOR)  # what their host code passes
    check_launch(fake, a, b, c)  # sizes from the cubin's EIATTR_KPARAM_INFO
    assert fake.stats().launches == 1


def test_their_nvptx_module_loads_in_ours(their_libs):
    payload, tree = cuda_payload(library_bin_of(their_libs["nvptx"]))
    assert tree == ([0, 1, 1], [1], ["_lib", "cuda"])
    fmt, infos, code = unpack_module_blob(payload)
    assert fmt == "ptx" and infos == {"main_kernel": VADD_INFO}
    ptx = code.decode()
    mod = load_ours(payload)
    assert mod.inspect_source("ptx") == ptx
    # apache-tvm 0.27.0.post1's nvptx target declares the kernel `.func`, not `.entry` (its LLVM
    # no longer reads the nvvm.annotations kernel marker): no driver can launch it. Ours reports
    # what cuModuleGetFunction says, as a real driver would.
    assert ".visible .func main_kernel(" in ptx and ".entry main_kernel" not in ptx
    a, b, c = device_vectors()
    with pytest.raises(RuntimeError, match="CUDA_ERROR_NOT_FOUND"):
        mod.get_function("main_kernel")(a, b, c, 8, FACTOR)
    # The same module with the kernel declared `.entry`: their FunctionInfo drives our launch.
    fixed = ptx.replace(".visible .func main_kernel(", ".visible .entry main_kernel(")
    mod = load_ours(pack_module_blob("ptx", infos, fixed))
    fake = FakeDriver()
    fake.reset()
    mod.get_function("main_kernel")(a, b, c, (N + FACTOR - 1) // FACTOR, FACTOR)
    check_launch(fake, a, b, c)


def test_their_library_runs_in_ours(their_libs):
    lib = tvm_ffi.load_module(their_libs["cuda"])
    assert lib.kind == "library" and [m.kind for m in lib.imports] == ["cuda"]
    a, b, c = device_vectors()
    fake = FakeDriver()
    fake.reset()
    # Their host code: argument checks, then the kernel looked up through
    # __TVMFFIEnvModLookupFromImports and called through __TVMFFIFunctionCall.
    lib["main"](a, b, c)
    check_launch(fake, a, b, c)
    short = tvm.runtime.empty((N - 1,), "float32", tvm.cuda(0))
    with pytest.raises(Exception, match="shape"):
        lib["main"](a, b, short)
    assert fake.stats().launches == 1
