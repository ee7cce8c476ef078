"""Module (ffi.Module, type index 73): loaded code that hands out Functions by name."""

import os

from . import _ffi_api
from .object import Object, register_object


class ModulePropertyMask:
    BINARY_SERIALIZABLE = 0b001
    RUNNABLE = 0b010
    COMPILATION_EXPORTABLE = 0b100


@register_object("ffi.Module")
class Module(Object):
    """A module. ``mod.name`` / ``mod["name"]`` return its function `name` (cached)."""

    __slots__ = ("_funcs",)

    def _cache(self):
        try:
            return self._funcs
        except AttributeError:
            self._funcs = {}
            return self._funcs

    @property
    def kind(self):
        return _ffi_api.ModuleGetKind(self)

    @property
    def imports(self):
        return [_ffi_api.ModuleGetImport(self, i) for i in range(_ffi_api.ModuleNumImports(self))]

    def implements_function(self, name, query_imports=False):
        return bool(_ffi_api.ModuleImplementsFunction(self, name, query_imports))

    def get_function(self, name, query_imports=False):
        """Function `name`; AttributeError when the module does not have it."""
        func = _ffi_api.ModuleGetFunction(self, name, query_imports)
        if func is None:
            raise AttributeError("Module %r has no function %r" % (self.kind, name))
        return func

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_h", "_ti", "_funcs"):
            raise AttributeError(name)
        cache = self._cache()
        func = cache.get(name)
        if func is None:
            func = cache[name] = self.get_function(name)
        return func

    def __getitem__(self, name):
        if not isinstance(name, str):
            raise TypeError("function name must be a str")
        return self.__getattr__(name)

    def __call__(self, *args):
        return self.main(*args)

    def get_function_metadata(self, name, query_imports=False):
        import json

        text = _ffi_api.ModuleGetFunctionMetadata(self, name, query_imports)
        return None if text is None else json.loads(text)

    def get_function_doc(self, name, query_imports=False):
        return _ffi_api.ModuleGetFunctionDoc(self, name, query_imports)

    def import_module(self, module):
        _ffi_api.ModuleImportModule(self, module)

    def clear_imports(self):
        _ffi_api.ModuleClearImports(self)

    def inspect_source(self, fmt=""):
        return _ffi_api.ModuleInspectSource(self, fmt)

    def get_property_mask(self):
        return _ffi_api.ModuleGetPropertyMask(self)

    def is_binary_serializable(self):
        return bool(self.get_property_mask() & ModulePropertyMask.BINARY_SERIALIZABLE)

    def is_runnable(self):
        return bool(self.get_property_mask() & ModulePropertyMask.RUNNABLE)

    def is_compilation_exportable(self):
        return bool(self.get_property_mask() & ModulePropertyMask.COMPILATION_EXPORTABLE)

    def write_to_file(self, file_name, fmt=""):
        _ffi_api.ModuleWriteToFile(self, file_name, fmt)

    def __repr__(self):
        if not self._h:
            return "Module(<released>)"
        return "Module(kind=%r)" % self.kind


def load_module(path, keep_module_alive=True):
    """Loads a module file (e.g. a .so exporting `__tvm_ffi_<name>` symbols).

    With `keep_module_alive` (default) the module is pinned for the life of the process
    (ffi.ModuleGlobalsAdd): objects it creates keep deleters that live in its code.
    """
    path = os.fspath(path)
    mod = _ffi_api.ModuleLoadFromFile(os.path.abspath(path) if os.path.exists(path) else path)
    if keep_module_alive:
        _ffi_api.ModuleGlobalsAdd(mod)
    return mod


def system_lib(symbol_prefix=""):
    """The system library (functions of statically linked code), seen through a prefix."""
    return _ffi_api.SystemLib(symbol_prefix)
