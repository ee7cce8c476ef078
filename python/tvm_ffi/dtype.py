"""dtype: a str subclass naming a DLPack data type ("float32", "int8x4", "bool", ...).

Parsing and printing are done by the library (TVMFFIDataTypeFromString/ToString), so Python
and C always agree. Parsed values are cached per string and per (code, bits, lanes).
"""

import ctypes

from . import _any, _frame
from . import _cabi as C


class DataTypeCode:
    """DLPack type codes."""

    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4
    COMPLEX = 5
    BOOL = 6
    Float8E3M4 = 7
    Float8E4M3 = 8
    Float8E4M3B11FNUZ = 9
    Float8E4M3FN = 10
    Float8E4M3FNUZ = 11
    Float8E5M2 = 12
    Float8E5M2FNUZ = 13
    Float8E8M0FNU = 14
    Float6E2M3FN = 15
    Float6E3M2FN = 16
    Float4E2M1FN = 17


_FLOAT_CODES = {2, 4} | set(range(7, 18))
_BY_TEXT = {}
_BY_PAYLOAD = {}


def _parse(text):
    data = text.encode("utf-8")
    ba = C.TVMFFIByteArray(_frame.bytes_address(data), len(data))
    out = C.DLDataType()
    if C.DataTypeFromString(ctypes.byref(ba), ctypes.byref(out)) != 0:
        _frame.raise_last_error()
    return out.code, out.bits, out.lanes


def _format(code, bits, lanes):
    dt = C.DLDataType(code, bits, lanes)
    fr = _frame.get_frame(0)
    try:
        fr.q[0] = 0
        fr.q[1] = 0
        if C.DataTypeToString(ctypes.byref(dt), fr.res_addr) != 0:
            _frame.raise_last_error()
        return _any.result_value(fr)
    finally:
        _frame.put_frame(fr)


class dtype(str):
    """A data type; compares equal to its string form, e.g. ``dtype("float32") == "float32"``."""

    __slots__ = ("_code", "_bits", "_lanes")

    def __new__(cls, content):
        if isinstance(content, dtype):
            return content
        text = _dtype_text(content)
        cached = _BY_TEXT.get(text)
        if cached is not None:
            return cached
        code, bits, lanes = _parse(text)
        val = str.__new__(cls, text)
        val._code, val._bits, val._lanes = code, bits, lanes
        _BY_TEXT[text] = val
        return val

    @staticmethod
    def from_dlpack_data_type(dl_data_type):
        """dtype from a DLPack (code, bits, lanes) triple."""
        code, bits, lanes = (int(x) for x in dl_data_type)
        return _from_triple(code, bits, lanes)

    def with_lanes(self, lanes):
        return _from_triple(self._code, self._bits, lanes)

    @property
    def type_code(self):
        return self._code

    @property
    def bits(self):
        return self._bits

    @property
    def lanes(self):
        lanes = self._lanes
        return lanes - (1 << 16) if lanes >= 1 << 15 else lanes

    @property
    def itemsize(self):
        return (self._bits * max(self.lanes, 1) + 7) // 8

    @property
    def is_bool(self):
        return self._code == DataTypeCode.BOOL

    @property
    def is_integer(self):
        return self._code in (DataTypeCode.INT, DataTypeCode.UINT)

    @property
    def is_float(self):
        return self._code in _FLOAT_CODES

    @property
    def is_handle(self):
        return self._code == DataTypeCode.HANDLE

    @staticmethod
    def is_dtype(arg):
        if isinstance(arg, dtype):
            return True
        try:
            dtype(str(arg))
            return True
        except (ValueError, TypeError):
            return False

    def __dlpack_data_type__(self):
        return (self._code, self._bits, self.lanes)

    def _payload(self):
        return self._code | (self._bits << 8) | (self._lanes << 16)

    def __repr__(self):
        return "dtype('%s')" % str.__str__(self)

    def __reduce__(self):
        return (dtype, (str(self),))


def _dtype_text(content):
    """String form of anything dtype-like (str, numpy dtype or type, torch dtype)."""
    if isinstance(content, str):
        return content
    mod = type(content).__module__
    if mod == "torch":
        return str(content).replace("torch.", "")
    if hasattr(content, "__dlpack_data_type__"):
        return str(dtype.from_dlpack_data_type(content.__dlpack_data_type__()))
    name = getattr(content, "name", None)  # numpy dtype
    if isinstance(name, str):
        return name
    if isinstance(content, type):  # numpy scalar type such as np.float32
        try:
            import numpy

            return numpy.dtype(content).name
        except (ImportError, TypeError):
            pass
    return str(content)


def _from_triple(code, bits, lanes):
    payload = (code & 0xFF) | ((bits & 0xFF) << 8) | ((lanes & 0xFFFF) << 16)
    return _from_payload(payload)


def _from_payload(payload):
    val = _BY_PAYLOAD.get(payload)
    if val is None:
        code, bits, lanes = payload & 0xFF, (payload >> 8) & 0xFF, (payload >> 16) & 0xFFFF
        val = str.__new__(dtype, _format(code, bits, lanes))
        val._code, val._bits, val._lanes = code, bits, lanes
        _BY_PAYLOAD[payload] = val
    return val


def _set_dtype(fr, j, value):
    fr.q[j] = C.kDataType
    fr.q[j + 1] = value._payload()


_any.SETTERS[dtype] = _set_dtype
_any._DTYPE_FROM_PAYLOAD[0] = _from_payload

# Literals, as in apache-tvm-ffi: tvm_ffi.float32 etc.
_LITERALS = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "float32", "float64", "bfloat16", "float8_e3m4", "float8_e4m3",
             "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
             "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
             "float4_e2m1fn", "float4_e2m1fnx2")
