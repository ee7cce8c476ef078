"""Runtime-only mode: the compiler packages import, their first call fails clearly.

A process runs the runtime only when TVM_USE_RUNTIME_LIB is set or libtvm_compiler is not
installed (the tvm-stack-runtime wheel). As in TVM, `import tvm.te` / `from tvm import relax`
still work there, so a deploy script that imports them at its top loads and runs exported
libraries; the first call that needs the compiler raises CompilerNotAvailableError (an
ImportError) naming the mode:

  * present packages (TVM_USE_RUNTIME_LIB=1 on a full install) import for real: nothing calls
    into libtvm_compiler at import time (global functions are looked up on first call, by
    tvm.ir._api, which raises this error; object classes of compiler types are registered
    only where those types exist: `tolerant_register_object`);
  * absent packages (the runtime wheel ships none of COMPILER_SUBPACKAGES) are stand-in
    modules from an import hook: every name in them is a stand-in that raises when called
    or used;
  * tvm.compile / tvm.tir.build call `check_compiler` first.
"""

import importlib.abc
import importlib.machinery
import sys

from . import base

# The tvm subpackages (and modules) that need libtvm_compiler: the full wheel ships them,
# the runtime wheel does not (python/tvm/BUILD.bazel, //wheels:wheel_test).
COMPILER_SUBPACKAGES = ("te", "tir", "tirx", "s_tir", "ir", "arith", "target", "driver",
                        "transform", "relax", "topi", "dlight")


class CompilerNotAvailableError(ImportError):
    """A compiler API was used in a process that runs the runtime only."""


def _reason():
    if base.runtime_only_requested():
        return "runtime-only mode (TVM_USE_RUNTIME_LIB is set)"
    return ("runtime-only mode: libtvm_compiler.so is not installed (a runtime-only package "
            "such as tvm-stack-runtime; install tvm-stack to compile)")


def error(what):
    """The CompilerNotAvailableError for using `what` in this process."""
    return CompilerNotAvailableError(
        "%s needs the compiler, but this process runs the runtime only: %s"
        % (what, _reason()), name=what.split("(")[0])


def check_compiler(what):
    """Raises CompilerNotAvailableError when this process runs the runtime only."""
    if base.RUNTIME_ONLY:
        raise error(what)


def require_compiler(package):  # noqa: ARG001 - kept for the packages that call it
    """Called at the top of the compiler packages. Importing them is allowed in every mode
    (TVM's behaviour): the check happens at the first compiler call (check_compiler)."""
    return None


def tolerant_register_object(register_object):
    """tvm_ffi.register_object that, in runtime-only mode, leaves a class unregistered when
    its type key is absent (the type lives in libtvm_compiler, not loaded)."""
    def wrapped(type_key=None):
        if isinstance(type_key, type) or type_key is None:
            return register_object(type_key)
        from tvm_ffi.object import type_key_to_index

        def deco(cls):
            if type_key_to_index(type_key) is None:
                return cls
            return register_object(type_key)(cls)
        return deco
    wrapped.__doc__ = register_object.__doc__
    return wrapped


class _Unavailable:
    """Stands for a name of a compiler package the runtime-only package does not ship."""

    def __init__(self, qualname):
        self._qualname = qualname

    def __call__(self, *args, **kwargs):
        raise error(self._qualname + "()")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Unavailable(self._qualname + "." + name)

    def __mro_entries__(self, bases):
        raise error(self._qualname)

    def __repr__(self):
        return "<%s: not available in runtime-only mode>" % self._qualname


class _StandInModule(type(sys)):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Unavailable(self.__name__ + "." + name)


class _StandInLoader(importlib.abc.Loader):
    def create_module(self, spec):
        mod = _StandInModule(spec.name)
        mod.__path__ = []  # a package: its submodules are stand-ins too
        return mod

    def exec_module(self, module):
        module.__doc__ = ("%s: not shipped in this runtime-only installation; its names raise "
                          "CompilerNotAvailableError when used" % module.__name__)


class _ImportGuard(importlib.abc.MetaPathFinder):
    """Answers imports of compiler packages that are not installed with stand-in modules."""

    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if len(parts) < 2 or parts[0] != "tvm" or parts[1] not in COMPILER_SUBPACKAGES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                return None  # shipped: the real module imports
        return importlib.machinery.ModuleSpec(fullname, _StandInLoader(), is_package=True)

    def __repr__(self):
        return "<tvm compiler stand-in importer>"


def install_runtime_only_hooks():
    """Runtime-only mode: stand-ins for absent compiler packages, tolerant object
    registration for present ones."""
    import tvm_ffi
    import tvm_ffi.object

    if not getattr(tvm_ffi.register_object, "_tvm_tolerant", False):
        tolerant = tolerant_register_object(tvm_ffi.register_object)
        tolerant._tvm_tolerant = True
        tvm_ffi.register_object = tolerant
    if not any(isinstance(f, _ImportGuard) for f in sys.meta_path):
        sys.meta_path.insert(0, _ImportGuard())


# The old name of install_runtime_only_hooks.
install_import_guard = install_runtime_only_hooks
