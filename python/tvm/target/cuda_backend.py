"""CUDA code generation (`target.build.cuda` / `target.build.nvptx`): kernels (after SplitHostDevice) -> PTX or cubin -> a "cuda" module.

Two paths, chosen by the target's `-device-compiler`:
  llvm (default)  codegen.NVPTXText (LLVM IR) -> llvmlite's NVPTX backend -> PTX. Needs no
                  GPU, driver or CUDA toolkit, except libdevice (nvvm/libdevice/libdevice.10.bc
                  of a CUDA toolkit or of the nvidia-cuda-nvcc wheel) for transcendental math.
  nvrtc | nvcc    codegen.CUDASource (CUDA C) -> tvm.contrib.nvcc.compile_cuda -> cubin.

    dev = DeviceBuild(kernels, Target("cuda -arch=sm_90"))
    dev.blob      # apache-tvm's CUDA module format
    dev.module    # ffi.Module.load_from_bytes.cuda(blob) when libtvm_runtime_cuda is loaded

The blob is apache-tvm's CUDA module format (docs/cuda.md; written by
tvm.runtime.cuda_support, which the runtime-only package also has). The packed call of a
kernel is its arguments followed by one int64 per launch tag.
"""

import glob
import os

import tvm_ffi

from ..ir import _api
from . import codegen
from ..runtime.cuda_support import FunctionInfo, pack_module_blob, unpack_module_blob

_TRIPLE = "nvptx64-nvidia-cuda"
# DLDataTypeCode of the argument types in FunctionInfo (handles are {3, 64, 1}).
_DTYPE_CODES = {"int": 0, "uint": 1, "float": 2, "handle": 3, "bfloat": 4}


def _arg_type(dtype):
    """(code, bits, lanes) of a kernel parameter's dtype string ("float32", "handle", ...)."""
    s = str(dtype)
    if s == "handle":
        return (3, 64, 1)
    if s == "bool":
        return (1, 1, 1)
    lanes = 1
    if "x" in s:
        s, lanes = s.split("x")
        lanes = int(lanes)
    for name, code in sorted(_DTYPE_CODES.items(), key=lambda kv: -len(kv[0])):
        if s.startswith(name) and s[len(name):].isdigit():
            return (code, int(s[len(name):]), lanes)
    raise ValueError("cuda: unsupported kernel parameter dtype %r" % dtype)


def pack_blob(fmt, code, infos):
    """The serialized CUDA module. `infos`: [(name, [(code, bits, lanes)...], [tag...])]."""
    functions = {name: FunctionInfo(name, list(args), list(tags), [0] * len(args))
                 for name, args, tags in infos}
    return pack_module_blob(fmt, functions, code)


def unpack_blob(blob):
    """(fmt, [(name, arg_types, tags, extra_tags)], code) of a serialized CUDA module."""
    fmt, functions, code = unpack_module_blob(bytes(blob))
    return fmt, [(f.name, [tuple(a) for a in f.arg_types], list(f.launch_param_tags),
                  list(f.arg_extra_tags)) for f in functions.values()], code


def find_libdevice():
    """Path of libdevice.10.bc: $CUDA_HOME / $CUDA_PATH, /usr/local/cuda*, the pip wheels."""
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    roots += ["/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*"), reverse=True)
    try:
        import site
        for sp in site.getsitepackages() + [site.getusersitepackages()]:
            roots += sorted(glob.glob(os.path.join(sp, "nvidia", "*")))
            roots += sorted(glob.glob(os.path.join(sp, "nvidia", "*", "*")))
    except Exception:  # noqa: BLE001 - site may be stripped in embedded interpreters
        pass
    for root in filter(None, roots):
        path = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
        if os.path.isfile(path):
            return path
    return None


def _link_libdevice(llmod, tm, llvm, kernels):
    path = find_libdevice()
    if path is None:
        raise RuntimeError("cuda: the kernels call math functions from libdevice, but "
                           "nvvm/libdevice/libdevice.10.bc was not found (set CUDA_HOME to a CUDA "
                           "toolkit, or pip install nvidia-cuda-nvcc)")
    with open(path, "rb") as f:
        lib = llvm.parse_bitcode(f.read())
    lib.triple = _TRIPLE
    lib.data_layout = str(tm.target_data)
    llmod.link_in(lib)
    # Keep only what the kernels use: every other definition becomes internal, so LLVM
    # drops the unused part of libdevice (thousands of functions otherwise end up in the PTX).
    for fn in llmod.functions:
        if not fn.is_declaration and fn.name not in kernels:
            fn.linkage = llvm.Linkage.internal


_SHORT_POINTERS = []  # set once: LLVM options are process-wide and parsed once each


def _short_shared_pointers(llvm):
    """32-bit pointers for shared, const and local memory (LLVM's -nvptx-short-ptr, read when
    an NVPTX target machine is made; nvcc does the same): with 64-bit ones every shared
    load's address is 64-bit arithmetic, and the tiled matmul of tools/gpu_check ran 13.5
    TFLOP/s on an H200 against 27.2 with them (NVRTC's build of the same schedule: 26.9)."""
    if not _SHORT_POINTERS:
        llvm.set_option("", "--nvptx-short-ptr")
        _SHORT_POINTERS.append(True)


def build_ptx(kernels, target):
    """PTX text of the kernel PrimFuncs in IRModule `kernels` for `target` (cuda/nvptx)."""
    from . import llvm_backend

    llvm = llvm_backend.llvm()
    _short_shared_pointers(llvm)
    ir = _api("codegen.NVPTXText")(kernels, target.fast_math_flags)
    tm = llvm.Target.from_triple(_TRIPLE).create_target_machine(cpu=target.arch, features="", opt=3)
    llmod = llvm.parse_assembly(ir)
    llmod.triple = _TRIPLE
    llmod.data_layout = str(tm.target_data)
    names = set(str(k) for k in kernels.functions.keys())
    if "@__nv_" in ir:
        _link_libdevice(llmod, tm, llvm, names)
    llmod.verify()
    llvm_backend.optimize(llmod, tm)
    return ir, tm.emit_assembly(llmod)


def cuda_c_options(target):
    """nvcc / NVRTC options for the target's floating-point rules: both contract a*b+c into
    an FMA by default (as the NVPTX path's "contract" flag does); `-fast-math-contract=false`
    turns that off (--fmad=false) and `-fast-math` asks for --use_fast_math."""
    flags = target.fast_math_flags.split(",")
    if "fast" in flags:
        return ["--use_fast_math"]
    return [] if "contract" in flags else ["--fmad=false"]


def function_infos(kernels):
    """[(name, arg_types, launch_tags)] of the kernels, in the module's order."""
    infos = []
    for name, func in kernels.functions.items():
        attrs = func.attrs
        tags = [str(t) for t in attrs["tir.launch_tags"]]
        infos.append((str(name), [_arg_type(p.dtype) for p in func.params], tags))
    return infos


def make_module(blob, source, source_format):
    """The runtime module of a serialized CUDA module: the CUDA runtime's when
    libtvm_runtime_cuda is loaded, else a serializable stand-in that export_library packs."""
    loader = tvm_ffi.get_global_func("ffi.Module.load_from_bytes.cuda", allow_missing=True)
    if loader is not None:
        return loader(bytes(blob))
    return _api("codegen.DeviceSourceModuleCreate")("cuda", bytes(blob), source, source_format)


class DeviceBuild:
    """What the device half of a compile produced: the kernels' LLVM IR and PTX (llvm path) or
    CUDA C source and cubin (nvrtc/nvcc), the blob and the runtime module."""

    def __init__(self, kernels, target):
        self.kernels = kernels
        self.target = target
        self.compiler = target._attr("device-compiler") or "llvm"
        self.function_infos = function_infos(kernels)
        self.llvm_ir = self.ptx = self.cuda_source = self.cubin = None
        if self.compiler == "llvm":
            self.llvm_ir, self.ptx = build_ptx(kernels, target)
            self.blob = pack_blob("ptx", self.ptx, self.function_infos)
            self.module = make_module(self.blob, self.ptx, "ptx")
        elif self.compiler in ("nvrtc", "nvcc"):
            from ..contrib import nvcc

            self.cuda_source = _api("codegen.CUDASource")(kernels)
            self.cubin = nvcc.compile_cuda(self.cuda_source, "cubin", target.arch,
                                           options=cuda_c_options(target), compiler=self.compiler)
            self.blob = pack_blob("cubin", self.cubin, self.function_infos)
            self.module = make_module(self.blob, self.cuda_source, "cuda")
        else:
            raise ValueError("target %s: -device-compiler must be llvm, nvrtc or nvcc (got %r)"
                             % (target, self.compiler))

    def source(self, fmt):
        """"ptx" / "nvptx-ll" (llvm path) or "cuda" (CUDA C path); None when not made."""
        return {"ptx": self.ptx, "nvptx-ll": self.llvm_ir, "cuda": self.cuda_source}.get(fmt)


@codegen.register_build("cuda", "nvptx")
def build(kernels, target):
    """The device half of a GPU compile: kernels (after SplitHostDevice) -> DeviceBuild, whose
    `.module` (kind "cuda") the host module imports."""
    return DeviceBuild(kernels, target)
