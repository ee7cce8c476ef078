"""tvm.runtime.Executable: what tvm.compile / tvm.tir.build return (TVM's class).

    exe = tvm.compile(prim_func, target="llvm")
    exe["main"](a, b)                          # a function of the (jitted) module
    exe.export_library("k.so")                 # one shared library; load_module reads it
    exe.export_library("k.tar")                # the object files, unlinked (tvm.contrib.tar)
    exe.export_library("k.so", fcompile=tvm.contrib.cc.cross_compiler("aarch64-linux-gnu-gcc"))
    exe.mod.write_to_file("k.o")               # the object (any target; also "k.ll", "k.s")

It wraps a runtime Module (`exe.mod`): for a TIR build the host code, kind "llvm", with any
device modules (kind "cuda") imported. export_library walks `mod`'s import tree: the modules
that compile into the library (kind "llvm") give object files, every other module is
serialized into the library's `__tvm_ffi__library_bin` (tvm.runtime.library_bin), so
load_module returns the tree as it was, rooted where `mod` was.

Extensions (not in TVM): the build's artefacts when tir.build made it (`llvm_ir`,
`optimized_ir`, `object`, `device`, `is_host`, inspect_source("ptx"/"cuda")), `cc=` and
`options=` of export_library (passed to the linker), and functions JIT-compiled in process
(tvm.compile(..., jit=True)).
"""

import os
import re
import shutil
import tempfile

import tvm_ffi

from . import library_bin

_TRIPLE = re.compile(r'^target triple = "([^"]*)"', re.M)


def _host_triple():
    """The host's triple without LLVM: the machine field is what matters here."""
    import platform

    machine = platform.machine()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine) + "-linux-gnu"


def _same_cpu(triple):
    from ..contrib import cross

    return cross.cpu_of(triple) == cross.cpu_of(_host_triple())


def _is_library(module):
    """Modules compiled into the exported .so itself (kind "llvm": an object file)."""
    return module.is_compilation_exportable() and not module.is_binary_serializable()


def module_triple(module):
    """The target triple of an "llvm" module (from its LLVM IR), or None."""
    try:
        found = _TRIPLE.search(module.inspect_source("ll"))
    except Exception:  # noqa: BLE001 - a module without LLVM IR
        return None
    return found.group(1) if found else None


def _lib_dirs():
    """Folders of the libtvm_runtime/libtvm_ffi this process loaded."""
    from .. import base as _base

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


def _collect(root, extra=()):
    seen, order, stack = set(), [], list(extra) + [root]
    while stack:
        m = stack.pop()
        if m._h in seen:
            continue
        seen.add(m._h)
        order.append(m)
        stack.extend(m.imports)
    return order


def pack_imports_default(root, workspace_dir, triple, extra_children=()):
    """Writes the library binary of `root`'s import tree into workspace_dir: an object file
    for `triple` when the LLVM backend is at hand (global codegen.LibraryBinObject), else C
    source (any C compiler builds it). Returns the path."""
    blob = library_bin.pack_tree(root, _is_library, extra_children)
    emit = tvm_ffi.get_global_func("codegen.LibraryBinObject", allow_missing=True)
    if emit is not None:
        path = os.path.join(workspace_dir, "devc.o")
        with open(path, "wb") as f:
            f.write(bytes(emit(blob, triple or "")))
    else:
        path = os.path.join(workspace_dir, "devc.c")
        with open(path, "w") as f:
            f.write(library_bin.blob_c_source(blob))
    return path


class Executable:
    """The result of tvm.compile / tvm.tir.build: a runtime Module (`mod`) that runs
    (`exe["name"]`, `jit()`) and exports (`export_library`)."""

    def __init__(self, mod):
        if not isinstance(mod, tvm_ffi.Module):
            raise TypeError("Executable wraps a runtime Module, got %r" % type(mod).__name__)
        self.mod = mod
        self._jitted_mod = None
        self._functions = {}       # name -> Function JIT-compiled in process (jit=True)
        self.host_build = None     # the backend's build of the host code (tir.build)
        self.device_builds = []    # the device builds whose modules `mod` imports

    # ---- running ----
    def jit(self, *, fcompile=None, addons=None, force_recompile=False, **kwargs):
        """A runnable runtime Module: `mod` itself when it runs here, else `mod` exported to a
        temporary shared library and loaded (cached; force_recompile=True redoes it)."""
        if self._jitted_mod is not None and not force_recompile:
            return self._jitted_mod
        if self.mod.is_runnable() and not force_recompile and fcompile is None and not addons:
            return self.mod
        triple = self.triple
        if triple and not _same_cpu(triple):
            raise RuntimeError("module compiled for %s cannot run on this host (%s); export it"
                               % (triple, _host_triple()))
        tmp = tempfile.mkdtemp(prefix="tvm_jit_")
        try:
            path = os.path.join(tmp, "exported.so")
            self.export_library(path, fcompile=fcompile, addons=addons, **kwargs)
            self._jitted_mod = tvm_ffi.load_module(path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return self._jitted_mod

    def __getitem__(self, name):
        if name in self._functions:
            return self._functions[name]
        return self.jit().get_function(name, query_imports=True)

    def get_function(self, name, query_imports=True):  # noqa: ARG002 - TVM's signature
        return self[name]

    def __getattr__(self, name):
        # exe.my_kernel(...) as exe["my_kernel"](...) (a runtime Module's habit)
        if name.startswith("_") or name in ("mod", "host_build", "device_builds"):
            raise AttributeError(name)
        try:
            return self[name]
        except AttributeError as err:
            raise AttributeError("Executable has no attribute or function %r" % name) from err

    def __call__(self, *args):
        names = self.func_names
        name = "main" if ("main" in names or not names) else names[0]
        return self[name](*args)

    # ---- what the build made (tir.build's artefacts) ----
    @property
    def func_names(self):
        return list(self.host_build.func_names) if self.host_build is not None else []

    @property
    def triple(self):
        if self.host_build is not None:
            return self.host_build.triple
        for m in _collect(self.mod):
            if _is_library(m):
                return module_triple(m)
        return None

    @property
    def is_host(self):
        """Whether the code runs on this machine's CPU."""
        triple = self.triple
        return _same_cpu(triple) if triple else self.mod.is_runnable()

    @property
    def llvm_ir(self):
        """The host code's LLVM IR as generated (before LLVM's optimisation)."""
        return self.host_build.llvm_ir if self.host_build is not None else self.mod.inspect_source("ll")

    @property
    def optimized_ir(self):
        return self.mod.inspect_source("ll") if self.host_build is None else self.host_build.optimized_ir

    @property
    def object(self):
        """The host code's object file (bytes), for its target."""
        if self.host_build is not None and getattr(self.host_build, "object", None) is not None:
            return bytes(self.host_build.object)
        tmp = tempfile.mkdtemp(prefix="tvm_obj_")
        try:
            path = os.path.join(tmp, "lib.o")
            self.mod.write_to_file(path, "o")
            with open(path, "rb") as f:
                return f.read()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @property
    def device(self):
        """The first device build (cuda: .blob, .function_infos, .ptx...), or None."""
        return self.device_builds[0] if self.device_builds else None

    @property
    def imported_modules(self):
        return list(self.mod.imports)

    def inspect_source(self, fmt="ll"):
        """The host code's LLVM IR ("ll", optimised; "ll-raw" as generated) or assembly ("s"),
        or for a GPU compile the kernels' "ptx" / "nvptx-ll" (LLVM path) or "cuda" (CUDA C)."""
        if fmt in ("ptx", "cuda", "nvptx-ll"):
            for dev in self.device_builds:
                src = dev.source(fmt) if hasattr(dev, "source") else None
                if src is not None:
                    return src
            raise ValueError("inspect_source: no %r source in this module" % fmt)
        if fmt == "ll-raw":
            return self.llvm_ir
        if fmt in ("ll", "llvm"):
            return self.optimized_ir
        return self.mod.inspect_source(fmt)

    def import_module(self, module):
        """Imports a runtime module (e.g. device code or a VM executable): functions not found
        in the host code are looked up in it, and export_library packs it into the .so."""
        if not isinstance(module, tvm_ffi.Module):
            raise TypeError("import_module expects a tvm_ffi.Module, got %r" % type(module).__name__)
        if module.kind == "library" or not module.is_binary_serializable():
            raise ValueError("module of kind %r cannot be exported into a library (not binary "
                             "serializable; link shared libraries instead)" % module.kind)
        if self.host_build is not None and self.host_build.module is self.mod:
            self.host_build.import_module(module)  # also into the loaded library
        else:
            self.mod.import_module(module)

    # ---- exporting ----
    def _export_root(self):
        """The module load_module of the exported file returns (the root of the import tree
        packed into it). Subclasses whose `mod` is not that root override this."""
        return self.mod

    def export_library(self, file_name, *, fcompile=None, fpack_imports=None, addons=None,
                       workspace_dir=None, cc=None, options=None, root_module=None, **kwargs):
        """Exports the module and its imports into one file.

        file_name     a shared library (".so": linked by tvm.contrib.cc.create_shared), or a
                      ".tar" of the object files (tvm.contrib.tar; load_module links it)
        fcompile      fcompile(file_name, files, **kwargs) making the file, e.g.
                      tvm.contrib.cc.create_shared or tvm.contrib.cc.cross_compiler(...)
        fpack_imports fpack_imports(mod, is_system_lib, symbol_prefix, workspace_dir) -> path
                      of a file holding the serialized imports (default: an object file from
                      the LLVM backend, or C source)
        addons        more files to link
        workspace_dir where the intermediate files go (default: a temporary folder)
        cc, options   the compiler and extra link options (passed to fcompile)
        root_module   (extension) a module to make the root, importing this one

        For the host CPU the default link names libtvm_runtime/libtvm_ffi (the file loads
        anywhere those are found). A module for another CPU links with that CPU's cross gcc
        (tvm.contrib.cross) and without the runtime libraries, whose symbols resolve when the
        target's process loads it; $TVM_CROSS_LIB_DIR or -L in `options` links them."""
        from ..contrib import cc as _cc
        from ..contrib import cross as _cross
        from ..contrib import tar as _tar

        file_name = os.fspath(file_name)
        root = self._export_root() if root_module is None else root_module
        extra = (self.mod,) if root_module is not None else ()
        modules = _collect(root, extra)
        libs = [m for m in modules if _is_library(m)]
        needs_pack = root_module is not None or any(not _is_library(m) for m in modules) \
            or any(m.imports for m in libs)
        triple = next((t for t in (module_triple(m) for m in libs) if t), None)
        if triple is None and fcompile is not None and getattr(fcompile, "get_target_triple", None):
            triple = fcompile.get_target_triple()
        triple = triple or _host_triple()

        tmp = None
        if workspace_dir is None:
            tmp = workspace_dir = tempfile.mkdtemp(prefix="tvm_export_")
        try:
            files = []
            for i, m in enumerate(libs):
                path = os.path.join(workspace_dir, "lib%d.o" % i)
                m.write_to_file(path, "o")
                files.append(path)
            if needs_pack:
                if fpack_imports is not None:
                    files.append(fpack_imports(root, False, "", workspace_dir))
                else:
                    files.append(pack_imports_default(root, workspace_dir, triple, extra))
            files += [os.fspath(a) for a in (addons or [])]
            call = dict(kwargs)
            if fcompile is None and file_name.endswith(".tar"):
                return _tar.tar(file_name, files)
            if fcompile is None:
                link = list(options or [])
                if _same_cpu(triple):
                    cc = cc or os.environ.get("CC") or shutil.which("cc") or "gcc"
                    dirs = _lib_dirs()
                    link_runtime = True
                else:
                    cc = _cross.compiler(triple, cc)
                    dirs = _cross.library_dirs(triple, options)
                    link_runtime = bool(dirs) or _cross.links_runtime(options)
                link = ["-L" + d for d in dirs] + link
                if link_runtime:
                    if needs_pack:
                        # The loaders of the packed modules' kinds live in libtvm_runtime: keep
                        # it a dependency even when the kernels do not call it (toolchains
                        # default to --as-needed), so the file loads anywhere.
                        link += ["-Wl,--no-as-needed", "-ltvm_runtime", "-Wl,--as-needed"]
                    else:
                        link += ["-ltvm_runtime"]
                    link += ["-ltvm_ffi"]
                link += ["-lm"]
                _cc.create_shared(file_name, files, options=link, cc=cc)
                return file_name
            if cc is not None:
                call["cc"] = cc
            if options is not None:
                call["options"] = options
            result = fcompile(file_name, files, **call)
            return file_name if result is None else result
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)

    def __repr__(self):
        return "Executable(%r)" % (self.mod,)
