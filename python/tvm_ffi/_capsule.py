"""Reading and renaming DLPack capsules cheaply.

The Python C API route (PyCapsule_GetName, GetPointer, SetName through ctypes.pythonapi) costs
about a microsecond per tensor. A capsule is a fixed struct after the object header —
{pointer, name, context, destructor} — so this module reads `pointer` and `name` with one
ctypes view and renames by writing the `name` word, exactly what PyCapsule_SetName does.
The layout is verified once at import on a probe capsule; if it does not match (an unusual
interpreter build) everything falls back to the C API. When it matches (FAST), tensor.py lets
the library's ImportCapsule helper read and rename capsules at id(capsule) + HEADER.

Name strings are looked up by address and cached: capsule names are static strings in
practice (numpy, PyTorch, this package), and the API must be used anyway for a new address.
"""

import ctypes

from . import _frame
from . import _cabi as C

_WORDS2 = ctypes.c_int64 * 2
HEADER = 2 * ctypes.sizeof(ctypes.c_void_p)  # ob_refcnt, ob_type
_NAMES = {}  # name address -> name bytes
_MAX_NAMES = 256
# Static names this package writes (kept alive by the module).
_STATIC = {name: name for name in (b"used_dltensor", b"used_dltensor_versioned")}
_STATIC_ADDR = {name: _frame.bytes_address(name) for name in _STATIC}


def _probe():
    name = b"tvm_ffi.capsule_layout_probe"
    cap = C.PyCapsule_New(0x5A5A5A50, name, None)
    words = _WORDS2.from_address(id(cap) + HEADER)
    ok = words[0] == 0x5A5A5A50 and words[1] == _frame.bytes_address(name)
    del cap
    return ok


FAST = _probe()
# The capsule type: the C helper reads capsules by layout, so it is only given objects that
# are exactly capsules (a broken __dlpack__ may return anything).
TYPE = type(C.PyCapsule_New(0x5A5A5A50, b"tvm_ffi.capsule_type_probe", None))


def parts(capsule):
    """(pointer, name bytes or None, words) of a PyCapsule; `words` is for `rename`."""
    if FAST:
        words = _WORDS2.from_address(id(capsule) + HEADER)
        addr = words[1]
        name = _NAMES.get(addr)
        if name is None:
            name = C.PyCapsule_GetName(capsule)
            if len(_NAMES) >= _MAX_NAMES:
                _NAMES.clear()
            _NAMES[addr] = name
        return words[0], name, words
    name = C.PyCapsule_GetName(capsule)
    return C.PyCapsule_GetPointer(capsule, name), name, None


def rename(capsule, words, used):
    """Marks a capsule consumed: its name becomes `used` (a static name of this module)."""
    if words is not None:
        words[1] = _STATIC_ADDR[used]
        return
    C.PyCapsule_SetName(capsule, _STATIC[used])
