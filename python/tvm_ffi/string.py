"""String and Bytes: str/bytes subclasses named after the FFI types.

Results always come back as plain `str`/`bytes` (cheapest, and what users compare against);
these classes exist so code written for apache-tvm-ffi (`tvm_ffi.core.String`) keeps working.
They convert exactly like str/bytes.
"""

from . import _any


class String(str):
    """An FFI string (a `str`)."""

    __slots__ = ()


class Bytes(bytes):
    """An FFI byte string (a `bytes`)."""

    __slots__ = ()


_any.SETTERS[String] = _any.set_str
_any.SETTERS[Bytes] = _any.set_bytes
