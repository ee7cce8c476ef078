"""Lazily looked-up library globals (`ffi.*`), e.g. ``_ffi_api.ArraySize(a)``.

Lookups happen on first use, so `import tvm_ffi` costs no registry traffic and globals added
to the library later are picked up.
"""

_CACHE = {}


def __getattr__(name):
    func = _CACHE.get(name)
    if func is None:
        from .function import get_global_func

        func = get_global_func("ffi." + name, allow_missing=True)
        if func is None:
            raise AttributeError(
                "libtvm_ffi has no global function ffi.%s (library too old?)" % name)
        _CACHE[name] = func
    return func
