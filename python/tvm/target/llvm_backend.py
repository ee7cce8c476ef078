"""The llvmlite backend: LLVM IR text from libtvm_compiler (codegen.LLVMText / NVPTXText),
optimised and emitted by llvmlite. One module for every LLVM target: the CPU path here
(`target.build.llvm`) and the NVPTX emission of cuda_backend share initialisation, target
machines, the optimisation pipeline and object emission.

    art = build(lowered_mod, Target("llvm"))     # LLVMBuild
    art.module                                   # runtime Module, kind "llvm"
    art.llvm_ir / art.optimized_ir / art.object  # what was made on the way

For the host CPU the object is linked into a temporary shared library (system `cc`) and
loaded, so the compiled and the exported code are the same; the "llvm" module hands out its
functions. For another CPU ("llvm -mtriple=aarch64-linux-gnu") nothing is loaded: the module
is exported (Executable.export_library) or written (module.write_to_file("k.o")).
`mcjit_functions` JIT-compiles in process instead (tvm.compile(..., jit=True)).
"""

import ctypes
import itertools
import os
import shutil
import tempfile

import tvm_ffi

from .. import base as _base
from ..ir import _api
from . import codegen

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


def llvm():
    """llvmlite.binding, initialised once for every target llvmlite was built with."""
    import llvmlite.binding as binding

    if not _LLVM_READY:
        # Every target llvmlite was built with (x86, AArch64, RISC-V, ARM, NVPTX...), not only
        # the host's: cross-compiling needs the others. llvmlite >= 0.45 deprecates
        # "initialize" (it initialises the core itself).
        for init in ("initialize", "initialize_all_targets", "initialize_all_asmprinters",
                     "initialize_native_target", "initialize_native_asmprinter"):
            fn = getattr(binding, init, None)
            if fn is not None:
                try:
                    fn()
                except Exception:  # noqa: BLE001 - "initialize" is deprecated in new versions
                    pass
        _LLVM_READY.append(True)
    return binding


def host_triple():
    return llvm().get_process_triple()


def target_machine(target):
    """The llvmlite TargetMachine of a CPU target (its -mtriple/-mcpu/-mattr; the host's CPU
    and features when it names neither a triple nor a CPU)."""
    binding = llvm()
    triple = target.mtriple or binding.get_process_triple()
    cpu = target.mcpu
    features = target.mattr
    if not cpu and triple == binding.get_process_triple():
        cpu = binding.get_host_cpu_name()
        if not features:
            features = binding.get_host_cpu_features().flatten()
    tgt = binding.Target.from_triple(triple)
    return tgt.create_target_machine(cpu=cpu or "", features=features or "", opt=3,
                                     reloc="pic", codemodel="default")


def optimize(llmod, tm):
    """LLVM's -O3 module pipeline for the target machine `tm`."""
    binding = llvm()
    pto = binding.create_pipeline_tuning_options(speed_level=3)
    pb = binding.create_pass_builder(tm, pto)
    pm = pb.getModulePassManager()
    pm.run(llmod, pb)


def parse(ir, triple, tm):
    """An llvmlite module of IR text for `triple`, verified."""
    llmod = llvm().parse_assembly(ir)
    llmod.triple = triple
    llmod.data_layout = str(tm.target_data)
    llmod.verify()
    return llmod


def same_cpu(triple, other=None):
    return triple.split("-")[0] == (other or host_triple()).split("-")[0]


class LLVMBuild:
    """A CPU build: the lowered IRModule, LLVM IR before and after optimisation, the object
    file, the triple, and the runtime module (kind "llvm")."""

    def __init__(self, mod, target):
        self.target = target
        self.ir_module = mod
        self.triple = target.mtriple or host_triple()
        self.llvm_ir = _api("codegen.LLVMText")(mod, self.triple, target.fast_math_flags)
        self.tm = target_machine(target)
        llmod = parse(self.llvm_ir, self.triple, self.tm)
        optimize(llmod, self.tm)
        self.optimized_ir = str(llmod)
        self.object = self.tm.emit_object(llmod)
        self.assembly = None  # made on demand: emit_assembly()
        self._llmod = llmod
        self.func_names = [str(k) for k in mod.functions.keys()]
        self.is_host = same_cpu(self.triple)
        self.lib = None
        self.module = _api("codegen.LLVMModuleCreate")(self.object, self.optimized_ir,
                                                       self.triple, None)

    def emit_assembly(self):
        if self.assembly is None:
            self.assembly = self.tm.emit_assembly(self._llmod)
        return self.assembly

    def load(self):
        """Links the object (and nothing else) into a temporary library, loads it and makes
        the "llvm" module hand out its functions. Host CPU only."""
        from ..runtime.executable import Executable

        tmpdir = tempfile.mkdtemp(prefix="tvm_compile_")
        try:
            path = os.path.join(tmpdir, "lib.so")
            Executable(self.module).export_library(path)
            self.lib = tvm_ffi.load_module(path)  # kept alive by tvm_ffi: the file may go
        finally:
            shutil.rmtree(tmpdir, ignore_errors=True)
        self.module = _api("codegen.LLVMModuleCreate")(self.object, self.optimized_ir,
                                                       self.triple, self.lib)

    def import_module(self, module):
        """Imports `module` (device code) into the runtime module and, where loaded, into the
        library, where the host code's lookups (library ctx) start."""
        self.module.import_module(module)
        if self.lib is not None:
            self.lib.import_module(module)


@codegen.register_build("llvm")
def build(mod, target, *, load=True):
    """Compiles a lowered IRModule (packed API) for the CPU target `target`."""
    art = LLVMBuild(mod, target)
    if load and art.is_host:
        art.load()
    return art


def mcjit_functions(art):
    """name -> Function of an LLVMBuild's functions JIT-compiled in this process by llvmlite's
    MCJIT (no C compiler, no file). Each function keeps the JIT engine alive."""
    binding = llvm()
    for name in ("tvm_ffi", "tvm_runtime"):
        lib = _base._LOADED_LIBS.get(name)
        if lib is not None:
            binding.load_library_permanently(lib._name)
    from tvm_ffi import _lib
    binding.load_library_permanently(_lib.LIB._name)
    backing = binding.parse_assembly(art.optimized_ir)
    engine = binding.create_mcjit_compiler(backing, art.tm)
    engine.finalize_object()
    from tvm_ffi import _any
    from tvm_ffi import _cabi as C
    funcs = {}
    for name in art.func_names:
        addr = engine.get_function_address("__tvm_ffi_" + name)
        out = ctypes.c_void_p()
        key = next(_JIT_KEYS)
        _JIT_ENGINES[key] = engine
        if C.FunctionCreate(ctypes.c_void_p(key), addr, _JIT_RELEASE, ctypes.byref(out)) != 0:
            _JIT_ENGINES.pop(key, None)
            from tvm_ffi import _frame
            _frame.raise_last_error()
        funcs[name] = _any.wrap_handle(out.value, C.kFunction)
    return funcs


def library_bin_object(blob, triple):
    """An object file (bytes) for `triple` defining __tvm_ffi__library_bin (the blob) and
    __tvm_ffi__library_ctx: how Executable.export_library packs imported modules."""
    from ..runtime import library_bin

    binding = llvm()
    triple = str(triple) or host_triple()
    tm = binding.Target.from_triple(triple).create_target_machine(reloc="pic")
    return library_bin.blob_object(bytes(blob), tm, triple, binding)


def lower_to_llvm_ir(mod, target=None):
    """LLVM IR text (before LLVM's optimisation) of a lowered module in the packed API."""
    from . import Target

    target = Target(target or "llvm")
    return _api("codegen.LLVMText")(mod, target.mtriple or host_triple(), target.fast_math_flags)


tvm_ffi.register_global_func("codegen.LibraryBinObject",
                             lambda blob, triple: library_bin_object(bytes(blob), str(triple)),
                             override=True)


def emit_assembly(ir, triple):
    """The target assembly of (optimised) LLVM IR text for `triple`: what an "llvm" module's
    write_to_file("k.s") writes. The host's CPU for the host triple, the generic one else."""
    from . import Target

    triple = str(triple) or host_triple()
    tm = target_machine(Target("llvm -mtriple=%s" % triple))
    return tm.emit_assembly(parse(str(ir), triple, tm))


tvm_ffi.register_global_func("codegen.LLVMEmitAssembly", emit_assembly, override=True)
