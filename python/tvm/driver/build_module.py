"""tvm.compile / tvm.build: lower a PrimFunc or IRModule, emit LLVM IR text (libtvm_compiler),
then let llvmlite optimise it for the target CPU and emit an object file.

    mod = tvm.driver.compile(func, target="llvm")     # a runtime Module (tvm_ffi)
    mod["main"](a, b, c)                               # tvm_ffi Tensors or DLPack arrays
    mod.export_library("k.so")                         # loads with runtime only

By default the object is linked into a temporary shared library (system `cc`) and loaded with
tvm_ffi.load_module, so the compiled and the exported artefacts are the same code.
`compile(..., jit=True)` instead JIT-compiles in process with llvmlite's MCJIT.
"""

import ctypes
import itertools
import os
import shutil
import subprocess
import tempfile

import tvm_ffi

from .. import base as _base
from ..ir import IRModule, _api
from ..target import Target
from ..tir import PrimFunc

_LLVM_READY = []

# JIT engines kept alive by the functions made from them (key: the function's `self`).
_JIT_ENGINES = {}
_JIT_KEYS = itertools.count(1)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _JIT_RELEASE(key):  # noqa: N802 - a C callback
    try:
        _JIT_ENGINES.pop(key, None)
    except Exception:  # noqa: BLE001 - at interpreter exit the dict may be gone
        pass


def _llvm():
    import llvmlite.binding as llvm

    if not _LLVM_READY:
        # Every target llvmlite was built with (x86, AArch64, RISC-V, ARM, ...), not only the
        # host's: cross-compiling ("llvm -mtriple=aarch64-linux-gnu") needs the others.
        # llvmlite >= 0.45 deprecates "initialize" (it initialises the core itself).
        for init in ("initialize", "initialize_all_targets", "initialize_all_asmprinters",
                     "initialize_native_target", "initialize_native_asmprinter"):
            fn = getattr(llvm, init, None)
            if fn is not None:
                try:
                    fn()
                except Exception:  # noqa: BLE001 - "initialize" is deprecated in new versions
                    pass
        _LLVM_READY.append(True)
    return llvm


def _as_module(func_or_mod):
    if isinstance(func_or_mod, IRModule):
        return func_or_mod
    if isinstance(func_or_mod, PrimFunc):
        name = "main"
        attrs = func_or_mod.attrs
        if "global_symbol" in attrs:
            name = str(attrs["global_symbol"])
        else:
            func_or_mod = func_or_mod.with_attr("global_symbol", name)
        return IRModule({name: func_or_mod})
    if isinstance(func_or_mod, dict):
        return IRModule(func_or_mod)
    raise TypeError("tvm.compile expects a PrimFunc or an IRModule, got %r" % type(func_or_mod))


def _target_machine(target, llvm):
    triple = target.mtriple or llvm.get_process_triple()
    cpu = target.mcpu
    features = target.mattr
    if not cpu and triple == llvm.get_process_triple():
        cpu = llvm.get_host_cpu_name()
        if not features:
            features = llvm.get_host_cpu_features().flatten()
    tgt = llvm.Target.from_triple(triple)
    return tgt.create_target_machine(cpu=cpu or "", features=features or "", opt=3,
                                     reloc="pic", codemodel="default")


def _optimize(llmod, tm, llvm):
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pm = pb.getModulePassManager()
    pm.run(llmod, pb)


def lower_to_llvm_ir(func_or_mod, target=None):
    """LLVM IR text (lowered, before LLVM's optimisation) of `func_or_mod`."""
    mod = host_pipeline()(lower(func_or_mod))
    target = Target(target or "llvm")
    return _api("codegen.LLVMText")(mod, target.mtriple, target.fast_math_flags)


def _lib_dirs():
    dirs = []
    for name in ("tvm_runtime", "tvm_ffi"):
        lib = _base._LOADED_LIBS.get(name)
        path = getattr(lib, "_name", None) if lib is not None else None
        if path is None and name == "tvm_ffi":
            from tvm_ffi import _lib
            path = getattr(_lib.LIB, "_name", None)
        if path:
            dirs.append(os.path.dirname(os.path.realpath(path)))
    return dirs


class Executable:
    """The result of tvm.compile: LLVM IR, an object file, and a loaded runtime Module."""

    def __init__(self, mod, target, jit=False):
        self._tmpdir = None
        llvm = _llvm()
        self.target = target
        self.ir_module = mod
        self.llvm_ir = _api("codegen.LLVMText")(mod, target.mtriple or llvm.get_process_triple(),
                                                target.fast_math_flags)
        self._tm = _target_machine(target, llvm)
        llmod = llvm.parse_assembly(self.llvm_ir)
        llmod.triple = target.mtriple or llvm.get_process_triple()
        llmod.data_layout = str(self._tm.target_data)
        llmod.verify()
        _optimize(llmod, self._tm, llvm)
        self._llmod = llmod
        self.optimized_ir = str(llmod)
        self.object = self._tm.emit_object(llmod)
        self.func_names = [str(k) for k in mod.functions.keys()]
        self._tmpdir = None
        self._engine = None
        self._funcs = {}
        self.imported_modules = []
        self.triple = llmod.triple
        self.is_host = self.triple.split("-")[0] == llvm.get_process_triple().split("-")[0]
        self._lib = None  # the library loaded from the object (host, not jit)
        if not self.is_host:
            pass  # cross-compiled: only export_library (with a cross `cc`) and `object`
        elif jit:
            self._jit(llvm)
        else:
            self._tmpdir = tempfile.mkdtemp(prefix="tvm_compile_")
            path = os.path.join(self._tmpdir, "lib.so")
            self.export_library(path)
            self._lib = tvm_ffi.load_module(path)
        # The runtime Module of the compile (kind "llvm"): the object, the IR, and the loaded
        # library's functions; device modules get imported into it.
        self.mod = _api("codegen.LLVMModuleCreate")(self.object, self.optimized_ir, self.triple,
                                                    self._lib)

    def _jit(self, llvm):
        for name in ("tvm_ffi", "tvm_runtime"):
            lib = _base._LOADED_LIBS.get(name)
            if lib is not None:
                llvm.load_library_permanently(lib._name)
        from tvm_ffi import _lib
        llvm.load_library_permanently(_lib.LIB._name)
        backing = llvm.parse_assembly(self.optimized_ir)
        self._engine = llvm.create_mcjit_compiler(backing, self._tm)
        self._engine.finalize_object()
        from tvm_ffi import _any
        from tvm_ffi import _cabi as C
        for name in self.func_names:
            addr = self._engine.get_function_address("__tvm_ffi_" + name)
            out = ctypes.c_void_p()
            # Each function holds the JIT engine (its code) until the function is freed, so
            # `tvm.compile(f, jit=True)["main"]` outlives the Executable.
            key = next(_JIT_KEYS)
            _JIT_ENGINES[key] = self._engine
            if C.FunctionCreate(ctypes.c_void_p(key), addr, _JIT_RELEASE, ctypes.byref(out)) != 0:
                _JIT_ENGINES.pop(key, None)
                from tvm_ffi import _frame
                _frame.raise_last_error()
            self._funcs[name] = _any.wrap_handle(out.value, C.kFunction)

    def __getitem__(self, name):
        if not self.is_host:
            raise RuntimeError("module compiled for %s cannot run on this host (%s); export it"
                               % (self.triple, _llvm().get_process_triple()))
        if self._funcs:  # jit
            return self._funcs[name]
        return self.mod[name]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def get_function(self, name):
        return self[name]

    def __call__(self, *args):
        return self[self.func_names[0]](*args)

    def inspect_source(self, fmt="ll"):
        """The host code's LLVM IR ("ll", optimised; "ll-raw" as generated), or for a GPU
        compile the kernels' "ptx" / "nvptx-ll" (LLVM path) or "cuda" (CUDA C path)."""
        device = self.__dict__.get("device")
        if fmt in ("ptx", "cuda", "nvptx-ll"):
            src = device.source(fmt) if device is not None else None
            if src is None:
                raise ValueError("inspect_source: no %r source in this module" % fmt)
            return src
        return self.optimized_ir if fmt in ("ll", "llvm") else self.llvm_ir

    def import_module(self, module):
        """Imports a runtime module (e.g. device code): functions not found in the host code
        are looked up in it, and export_library packs it into the .so."""
        if not isinstance(module, tvm_ffi.Module):
            raise TypeError("import_module expects a tvm_ffi.Module, got %r" % type(module).__name__)
        if module.kind == "library" or not module.is_binary_serializable():
            raise ValueError("module of kind %r cannot be exported into a library (not binary "
                             "serializable; link shared libraries instead)" % module.kind)
        self.imported_modules.append(module)
        self.mod.import_module(module)
        if self._lib is not None:  # where the host code's own lookups (library ctx) start
            self._lib.import_module(module)

    def export_library(self, path, cc=None, options=None, *, root_module=None):
        """Links the object into a shared library that needs only libtvm_runtime/libtvm_ffi.

        Imported modules (import_module) are packed into the library (tvm-ffi's
        `__tvm_ffi__library_bin`): load_module returns the library with them imported. With
        `root_module` (e.g. a VM executable), load_module returns that module instead, with
        the library (and the imports) imported into it, so its code finds the kernels.

        A module for another CPU links with that CPU's cross gcc, against that CPU's build of
        the two libraries ($TVM_CROSS_LIB_DIR or -L in `options`): see tvm.driver.cross."""
        if self.is_host:
            cc = cc or os.environ.get("CC") or shutil.which("cc") or "gcc"
            lib_dirs = _lib_dirs()
        else:
            from . import cross
            cc = cross.compiler(self.triple, cc)
            lib_dirs = cross.library_dirs(self.triple, options)
        tmp = tempfile.mkdtemp(prefix="tvm_export_")
        try:
            obj = os.path.join(tmp, "lib.o")
            with open(obj, "wb") as f:
                f.write(self.object)
            cmd = [cc, "-shared", "-fPIC", "-o", path, obj]
            if self.imported_modules or root_module is not None:
                from . import library_bin
                blob = library_bin.pack(self.imported_modules, root=root_module)
                blob_obj = os.path.join(tmp, "library_bin.o")
                with open(blob_obj, "wb") as f:
                    f.write(library_bin.blob_object(blob, self._tm, self.triple, _llvm()))
                cmd.append(blob_obj)
            for d in lib_dirs:
                cmd += ["-L" + d]
            if self.imported_modules or root_module is not None:
                # The loaders of the packed modules' kinds live in libtvm_runtime: keep it a
                # dependency even when the kernels do not call it (toolchains default to
                # --as-needed), so the file loads anywhere, e.g. under apache-tvm-ffi.
                cmd += ["-Wl,--no-as-needed", "-ltvm_runtime", "-Wl,--as-needed"]
            else:
                cmd += ["-ltvm_runtime"]
            cmd += ["-ltvm_ffi", "-lm"]
            cmd += list(options or [])
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError("linking %s failed:\n%s\n%s" % (path, " ".join(cmd), proc.stderr))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return path

    def __del__(self):
        if self.__dict__.get("_tmpdir"):
            shutil.rmtree(self._tmpdir, ignore_errors=True)


@tvm_ffi.register_global_func("target.build.llvm")
def _target_build_llvm(mod, target):
    """Codegen for target kind "llvm", by the registry's name (`target.build.<kind>`, as in
    TVM): a lowered module in the packed convention (tvm.lower, then host_pipeline) and a
    target string -> the runtime Module of kind "llvm"."""
    return Executable(mod, Target(str(target))).mod


@tvm_ffi.register_global_func("target.build.cuda")
def _target_build_cuda(kernels, target):
    """Codegen for target kind "cuda": kernels (after SplitHostDevice) and a target string ->
    the runtime Module of kind "cuda" (driver/cuda.py)."""
    from . import cuda

    return cuda.DeviceBuild(kernels, Target(str(target))).module


tvm_ffi.register_global_func("target.build.nvptx", _target_build_cuda)


def default_pipeline():
    """The TIR lowering pipeline, as one Sequential: the block passes (LowerInitBlock,
    ConvertBlocksToOpaque, CompactBufferAllocation, LowerOpaqueBlock), then Simplify,
    HoistIfThenElse, UnrollLoop, FlattenBuffer, VectorizeLoop, Simplify."""
    from ..ir.transform import Sequential
    from ..tir import transform as T

    return Sequential([T.LowerInitBlock(), T.ConvertBlocksToOpaque(), T.CompactBufferAllocation(),
                       T.LowerOpaqueBlock(), T.Simplify(), T.HoistIfThenElse(), T.UnrollLoop(),
                       T.FlattenBuffer(), T.VectorizeLoop(),
                       T.Simplify()], name="tir.lower")


def host_pipeline():
    """What tvm.compile applies after `lower`: MakePackedAPI (the calling convention and the
    argument checks, in TIR), then LowerTVMBuiltin (workspace calls for large temporaries)."""
    from ..ir.transform import Sequential
    from ..tir import transform as T

    return Sequential([T.MakePackedAPI(), T.LowerTVMBuiltin()], name="tir.host")


def lower(func_or_mod):
    """The module after the TIR pipeline (what codegen sees), under the current
    tvm.transform.PassContext."""
    return default_pipeline()(_as_module(func_or_mod))


def device_pipeline(target):
    """What tvm.compile applies to a module lowered for a GPU target: each function is marked
    with the target, SplitHostDevice cuts out the kernels (loops bound to blockIdx/threadIdx),
    and ThreadSync puts barriers between shared-memory writes and reads in the kernels."""
    from ..ir.transform import Sequential, module_pass
    from ..tir import transform as T

    @module_pass(opt_level=0, name="tir.BindTarget")
    def bind_target(mod, ctx):
        return IRModule({str(k): (f if "target" in f.attrs else f.with_attr("target", target))
                         for k, f in mod.functions.items()})

    return Sequential([bind_target, T.SplitHostDevice(), T.ThreadSync("shared")],
                      name="tir.device")


def _split_kernels(mod):
    host, kernels = {}, {}
    for name, func in mod.functions.items():
        cc = func.attrs["calling_conv"] if "calling_conv" in func.attrs else ""
        (kernels if str(cc) == "device_kernel" else host)[str(name)] = func
    return IRModule(host), IRModule(kernels)


def _compile_device(func_or_mod, target, jit):
    from . import cuda

    if jit:
        raise ValueError("tvm.compile: jit=True is for CPU targets; %s kernels are launched from "
                         "a loaded library (leave jit off)" % target.kind_name)
    host, kernels = _split_kernels(device_pipeline(target)(lower(func_or_mod)))
    device = cuda.DeviceBuild(kernels, target)
    exe = Executable(host_pipeline()(host), Target(target.host or "llvm"))
    exe.device = device
    exe.import_module(device.module)
    return exe


def _has_relax(mod):
    return any(type(f).__name__ == "Function" and type(f).__module__.startswith("tvm.relax")
               for f in mod.functions.values())


def compile(func_or_mod, target=None, *, jit=False, **kwargs):  # noqa: A001
    """Compiles a PrimFunc/IRModule for `target` (default "llvm", the host CPU). For a GPU
    target ("cuda -arch=sm_90") the kernels become PTX in an imported "cuda" module and the
    host code (compiled for the target's host, "llvm" by default) launches them."""
    if isinstance(func_or_mod, IRModule) and _has_relax(func_or_mod):
        from .. import relax  # a graph-level module: bytecode + kernels (relax.build)
        return relax.build(func_or_mod, target, **kwargs)
    target = Target(target or "llvm")
    if target.is_device:
        return _compile_device(func_or_mod, target, jit)
    return Executable(host_pipeline()(lower(func_or_mod)), target, jit=jit)


def build(func_or_mod, target=None, name=None, **kwargs):
    """TVM's older entry point; same as compile."""
    return compile(func_or_mod, target=target, **kwargs)
