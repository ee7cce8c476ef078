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
import re
import shutil
import subprocess
import tempfile
import threading

import tvm_ffi

from .. import base as _base
from ..ir import _api
from ..ir.instrument import timed_phase
from . import codegen, llvm_compile

_LLVM_READY = []  # [llvmlite.binding] once initialised
_PRELOADING = []  # the thread preload() started

# JIT engines kept alive by the functions made from them (key: the function's `self`).
_JIT_ENGINES = {}
_JIT_KEYS = itertools.count(1)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _JIT_RELEASE(key):  # noqa: N802 - a C callback
    try:
        _JIT_ENGINES.pop(key, None)
    except Exception:  # noqa: BLE001 - at interpreter exit the dict may be gone
        pass


_LLVM_INIT_LOCK = threading.Lock()


def llvm():
    """llvmlite.binding, initialised once for every target llvmlite was built with."""
    if _LLVM_READY:
        return _LLVM_READY[0]
    with _LLVM_INIT_LOCK:  # preload's thread and a build may both get here first
        if _LLVM_READY:
            return _LLVM_READY[0]
        import llvmlite.binding as binding

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
        _LLVM_READY.append(binding)
        return binding


def preload():
    """Loads and initialises llvmlite in a thread of its own, unless done or under way, so
    that a build's first LLVM work does not wait for it (importing llvmlite and mapping its
    ~100 MB library: 20-35 ms, the dlopen outside the GIL). relax.build calls it first; its
    Relax passes run meanwhile."""
    if _LLVM_READY or _PRELOADING:
        return
    _PRELOADING.append(threading.Thread(target=_preload, daemon=True))
    _PRELOADING[0].start()


def _preload():
    try:
        llvm()
    except Exception:  # noqa: BLE001 - the build's own llvm() call reports it
        pass


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
    tm = llvm_compile.target_machine(triple, cpu, features)
    tm.tvm_settings = (triple, cpu or "", features or "")  # what a thread's own machine needs
    return tm


def optimize(llmod, tm):
    """LLVM's -O3 module pipeline for the target machine `tm`."""
    llvm()
    llvm_compile.optimize(llmod, tm)


def parse(ir, triple, tm):
    """An llvmlite module of IR text for `triple`, verified."""
    llvm()
    return llvm_compile.parse(ir, triple, tm)


def compile_here(ir, triple, tm):
    """(object bytes, optimised IR text, the optimised module) of IR text, in llvmlite's
    global context (one at a time), each step a timed_phase (llvm.parse, llvm.optimize,
    llvm.emit_object, llvm.print_ir)."""
    llvm()
    with timed_phase("llvm.parse"):
        llmod = llvm_compile.parse(ir, triple, tm)
    with timed_phase("llvm.optimize"):
        llvm_compile.optimize(llmod, tm)
    with timed_phase("llvm.emit_object"):
        obj = tm.emit_object(llmod)
    with timed_phase("llvm.print_ir"):
        text = str(llmod)
    return obj, text, llmod


def same_cpu(triple, other=None):
    return triple.split("-")[0] == (other or host_triple()).split("-")[0]


# A host module with at least this much LLVM IR text is compiled in parts, one per core (at
# most 4), each in a thread with an LLVM context of its own (llvm_compile.compile_isolated).
# LLVM takes ~1.5-2 s of CPU per MB of IR here (16 KB: ~30 ms); a part costs a thread and
# the objects' relocatable link (`ld -r`, ~4 ms), which a smaller module would not win back.
# (The static-batch MLP's ~40 KB: 0.16 -> 0.14 s wall in two parts.) TVM_LLVM_PARALLEL=0
# turns it off.
_PARALLEL_MIN_IR = 16 << 10


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _system_ld():
    """The system linker when it is the one the host's C compiler drives (no $CC of the
    user's), else None: called directly it links in a third of the time (the gcc driver and
    collect2 cost ~10 ms a link)."""
    if os.environ.get("CC"):
        return None
    return shutil.which("ld")


def _ld_shared(file_name, files, **kwargs):  # noqa: ARG001 - export_library's fcompile shape
    """export_library's fcompile for LLVMBuild.load's temporary library: `ld -shared` with what
    the default link names (the runtime libraries, libm). Raises CalledProcessError when ld
    fails (load then links with the C compiler)."""
    from ..runtime.executable import _lib_dirs

    cmd = [_system_ld(), "-shared", "--eh-frame-hdr", "-o", file_name] + list(files)
    cmd += ["-L" + d for d in _lib_dirs()] + ["-ltvm_runtime", "-ltvm_ffi", "-lm"]
    subprocess.run(cmd, check=True, capture_output=True)


def _relocatable_link(objects):
    """One object file (bytes) of several, by a relocatable link (`ld -r`, or `cc -r` when the
    user names a C compiler); None without either."""
    ld = _system_ld()
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if ld is None and cc is None:
        return None
    tmpdir = tempfile.mkdtemp(prefix="tvm_parts_")
    try:
        paths = []
        for i, obj in enumerate(objects):
            paths.append(os.path.join(tmpdir, "part%d.o" % i))
            with open(paths[-1], "wb") as f:
                f.write(obj)
        out = os.path.join(tmpdir, "whole.o")
        cmd = [ld, "-r", "-o", out] if ld is not None else [cc, "-r", "-nostdlib", "-o", out]
        done = subprocess.run(cmd + paths, capture_output=True)
        if done.returncode != 0:
            return None
        with open(out, "rb") as f:
            return f.read()
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _function_sizes(ir, names):
    """Bytes of IR text per PrimFunc: its packed function and its parallel bodies
    (__tvm_parallel_lambda_<name>_<k>)."""
    sizes = dict.fromkeys(names, 0)
    starts = [m.start() for m in re.finditer(r"^define ", ir, re.M)] + [len(ir)]
    for a, b in zip(starts, starts[1:]):
        m = re.match(r"define [^@]*@([^(]+)\(", ir[a:b])
        symbol = m.group(1) if m else ""
        if symbol.startswith("__tvm_ffi_"):
            name = symbol[len("__tvm_ffi_"):]
        elif symbol.startswith("__tvm_parallel_lambda_"):
            name = symbol[len("__tvm_parallel_lambda_"):].rsplit("_", 1)[0]
        else:
            continue
        if name in sizes:
            sizes[name] += b - a
    return sizes


def _parallel_parts(mod, ir):
    """IRModules of similar IR size to compile at once, or None to compile `mod` whole."""
    n = min(_cores(), 4, len(mod.functions))
    if n < 2 or len(ir) < _PARALLEL_MIN_IR or os.environ.get("TVM_LLVM_PARALLEL") == "0":
        return None
    return _parts_by_size(mod, ir, n)


def _start_part_compiles(texts, tm):
    """[(thread, result box)]: each text compiled in a thread of its own, at once."""
    started = []
    for text in texts:
        box = {}
        thread = threading.Thread(target=_compile_into, args=(box, text, tm.tvm_settings), daemon=True)
        thread.start()
        started.append((thread, box))
    return started


def _compile_into(box, text, settings):
    try:
        box["out"] = llvm_compile.compile_isolated(text, settings)
    except Exception as err:  # noqa: BLE001 - raised again by _finish_part_compiles
        box["error"] = err


def _finish_part_compiles(started):
    """(objects, optimised IR texts) of _start_part_compiles' parts, in order, once every
    thread is done; the first error of a part raised."""
    with timed_phase("llvm.wait_parts"):
        for thread, _ in started:
            thread.join()
    for _, box in started:
        if "error" in box:
            raise box["error"]
    return [box["out"][0] for _, box in started], [box["out"][1] for _, box in started]


def _join_objects(objects, irs, triple, tm):
    """One object file of several (a relocatable link; without a C compiler, the optimised
    IR texts linked into one module and emitted again)."""
    if len(objects) == 1:
        return objects[0]
    with timed_phase("llvm.relocatable_link"):
        whole = _relocatable_link(objects)
    if whole is None:
        linked = parse(irs[0], triple, tm)
        for text in irs[1:]:
            linked.link_in(parse(text, triple, tm))
        return tm.emit_object(linked)
    return whole


def _compile_in_parts(texts, triple, tm):
    """(object, [optimised IR per part]): part 0 in this thread, the others in threads of
    their own at the same time; the objects joined by a relocatable link."""
    started = _start_part_compiles(texts[1:], tm)
    llvm()
    try:
        with timed_phase("llvm.compile_part"):
            first = llvm_compile.compile_isolated(texts[0], tm.tvm_settings)
    finally:
        objects, irs = _finish_part_compiles(started)
    objects, irs = [first[0]] + objects, [first[1]] + irs
    return _join_objects(objects, irs, triple, tm), irs


def _ir_texts(mod, target, checker="internal"):
    """(triple, LLVM IR text of `mod`, target machine, the texts of its parts or None when it
    is compiled whole): what every CPU build starts from. `checker` says how the module holds
    the tensor-argument checker (tensor_arg_check.h): "internal" (a whole module: its own
    copy), "define" (a module others are linked with: it holds theirs), "declare" (linked
    with one that holds it). Parts of a module declare it but the first, which defines it
    unless the whole module declares it."""
    triple = target.mtriple or host_triple()
    with timed_phase("codegen.LLVMText"):
        if checker == "internal":
            ir = _api("codegen.LLVMText")(mod, triple, target.fast_math_flags)
        else:
            ir = _api("codegen.LLVMTextPart")(mod, triple, target.fast_math_flags, checker)
    tm = target_machine(target)
    parts = _parallel_parts(mod, ir)
    if parts is None:
        return triple, ir, tm, None
    first = "declare" if checker == "declare" else "define"
    with timed_phase("codegen.LLVMText (parts)"):
        texts = [_api("codegen.LLVMTextPart")(part, triple, target.fast_math_flags,
                                              first if i == 0 else "declare")
                 for i, part in enumerate(parts)]
    return triple, ir, tm, texts


class EarlyHostBuild:
    """LLVM's work on a lowered host module started now and joined by `finish`, so that it
    runs while the caller goes on (relax.build's Relax passes after the kernels are
    scheduled): the parts of _parallel_parts (or the whole module), each in a thread of its
    own (llvmlite's calls release the GIL)."""

    def __init__(self, mod, target):
        llvm()
        self.mod = mod
        self.target = target
        # it holds the tensor-argument checker for the module built after it (build_after_early)
        self.triple, self.llvm_ir, self.tm, texts = _ir_texts(mod, target, checker="define")
        self._started = _start_part_compiles(texts or [self.llvm_ir], self.tm)

    def finish(self, meanwhile=None):
        """(objects, optimised IR texts, meanwhile's result) of every part: `meanwhile` (no
        arguments; the functions added after the early start) runs in this thread first,
        beside the parts' threads. An error of a part or of `meanwhile` is raised once every
        thread is done."""
        extra = error = None
        if meanwhile is not None:
            try:
                extra = meanwhile()
            except Exception as err:  # noqa: BLE001 - raised once the threads are joined
                error = err
        objects, irs = _finish_part_compiles(self._started)
        if error is not None:
            raise error
        return objects, irs, extra


def _parts_by_size(mod, ir, n):
    """`mod` cut into n IRModules of similar IR size (largest functions first, each to the
    lightest part)."""
    funcs = {str(k): f for k, f in mod.functions.items()}
    sizes = _function_sizes(ir, funcs)
    parts = [[0, {}] for _ in range(n)]
    for name in sorted(funcs, key=lambda k: -sizes[k]):
        part = min(parts, key=lambda p: p[0])
        part[0] += sizes[name] + 1
        part[1][name] = funcs[name]
    # the largest first (part 0 is the one the caller's thread compiles, when it does)
    parts.sort(key=lambda p: -p[0])
    return [_ir_module(p[1]) for p in parts if p[1]]


def build_after_early(early, rest, target):
    """The loaded LLVMBuild of an EarlyHostBuild's module and `rest` (a lowered module of the
    functions it lacks, or None): rest compiled in this thread beside the early parts'
    threads, the objects linked into one. Rest uses the early module's
    tensor-argument checker."""
    funcs = {str(k): f for k, f in early.mod.functions.items()}
    has_rest = rest is not None and len(rest.functions)
    objects, irs, extra = early.finish(
        (lambda: LLVMBuild(rest, target, checker="declare")) if has_rest else None)
    llvm_irs = [early.llvm_ir]
    if extra is not None:
        objects.append(extra.object)
        irs.extend(extra._part_irs or [extra.optimized_ir])
        llvm_irs.append(extra.llvm_ir)
        funcs.update({str(k): f for k, f in rest.functions.items()})
    art = LLVMBuild.__new__(LLVMBuild)
    art.target, art.triple, art.tm = target, early.triple, early.tm
    art.ir_module = _ir_module(funcs)
    art.llvm_ir = "\n".join(llvm_irs)
    art.object = _join_objects(objects, irs, early.triple, early.tm)
    art._part_irs = irs if len(irs) > 1 else None
    art.optimized_ir = "\n".join(irs)
    art._llmod = None  # optimized_module() parses on demand
    art.assembly = None
    art.func_names = list(funcs)
    art.is_host = same_cpu(art.triple)
    art.lib = None
    art.module = _api("codegen.LLVMModuleCreate")(art.object, art.optimized_ir, art.triple, None)
    if art.is_host:
        art.load()
    return art


def _ir_module(funcs):
    from ..ir import IRModule

    return IRModule(funcs)


class LLVMBuild:
    """A CPU build: the lowered IRModule, LLVM IR before and after optimisation, the object
    file, the triple, and the runtime module (kind "llvm")."""

    def __init__(self, mod, target, checker="internal"):
        self.target = target
        self.ir_module = mod
        self.triple, self.llvm_ir, self.tm, texts = _ir_texts(mod, target, checker)
        self._part_irs = None  # the optimised IR of each part, when compiled in parts
        if texts is not None:
            with timed_phase("llvm.compile_in_parts"):
                self.object, self._part_irs = _compile_in_parts(texts, self.triple, self.tm)
            llmod = None  # optimized_module() links the parts' texts on demand
            self.optimized_ir = "\n".join(self._part_irs)  # for reading: one module per part
        else:
            with timed_phase("llvm.compile"):
                self.object, self.optimized_ir, llmod = compile_here(self.llvm_ir, self.triple, self.tm)
        self.assembly = None  # made on demand: emit_assembly()
        self._llmod = llmod
        self.func_names = [str(k) for k in mod.functions.keys()]
        self.is_host = same_cpu(self.triple)
        self.lib = None
        self.module = _api("codegen.LLVMModuleCreate")(self.object, self.optimized_ir,
                                                       self.triple, None)

    def emit_assembly(self):
        if self.assembly is None:
            self.assembly = self.tm.emit_assembly(self.optimized_module())
        return self.assembly

    def optimized_module(self):
        """The optimised code as one llvmlite module (the parts linked, when compiled so)."""
        if self._part_irs is None:
            if self._llmod is None:
                self._llmod = parse(self.optimized_ir, self.triple, self.tm)
            return self._llmod
        return link_parts(self._part_irs, self.triple, self.tm)

    def load(self):
        """Links the object (and nothing else) into a temporary library, loads it and makes
        the "llvm" module hand out its functions. Host CPU only."""
        from ..runtime.executable import Executable

        tmpdir = tempfile.mkdtemp(prefix="tvm_compile_")
        try:
            path = os.path.join(tmpdir, "lib.so")
            with timed_phase("link.shared_library"):
                linked = False
                if _system_ld() is not None:
                    try:
                        Executable(self.module).export_library(path, fcompile=_ld_shared)
                        linked = True
                    except (OSError, subprocess.CalledProcessError):
                        pass  # the C compiler's link below
                if not linked:
                    Executable(self.module).export_library(path)
            with timed_phase("link.load"):
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
    backing = binding.parse_assembly(str(art.optimized_module()))
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
    return tm.emit_assembly(parse_joined(str(ir), triple, tm))


def link_parts(texts, triple, tm):
    """One llvmlite module of several modules' IR texts: the first parsed, the others linked in."""
    whole = parse(texts[0], triple, tm)
    for text in texts[1:]:
        whole.link_in(parse(text, triple, tm))
    return whole


def parse_joined(text, triple, tm):
    """One llvmlite module of IR text that may be several modules' texts joined (a build
    compiled in parts keeps its optimised IR so, one module after another)."""
    starts = [m.start() for m in re.finditer(r"^; ModuleID = ", text, flags=re.M)]
    bounds = [0] + starts[1:] + [len(text)]
    return link_parts([text[lo:hi] for lo, hi in zip(bounds, bounds[1:])], triple, tm)


tvm_ffi.register_global_func("codegen.LLVMEmitAssembly", emit_assembly, override=True)
