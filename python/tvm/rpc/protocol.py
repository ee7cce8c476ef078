"""Client side of the wire format (docs/rpc.md): frames and tagged values."""

import struct

MAGIC = 0x524D5654
VERSION = 1
MAX_FRAME = 256 << 20

OP_HELLO, OP_GET_GLOBAL, OP_CALL, OP_UPLOAD, OP_LOAD_MODULE = 1, 2, 3, 4, 5
OP_MODULE_GET_FUNCTION, OP_TENSOR_EMPTY, OP_TENSOR_WRITE, OP_TENSOR_READ = 6, 7, 8, 9
OP_TENSOR_INFO, OP_FREE = 10, 11

T_NONE, T_INT, T_BOOL, T_FLOAT, T_STR, T_BYTES = 0, 1, 2, 3, 4, 5
T_DEVICE, T_DTYPE, T_SHAPE, T_HANDLE, T_ARRAY = 6, 7, 8, 9, 10

_U8, _U16, _U32, _U64, _I64, _F64 = (struct.Struct("<" + c) for c in "BHIQqd")


class Writer:
    def __init__(self, op):
        self.parts = [_U8.pack(op)]

    def u8(self, v):
        self.parts.append(_U8.pack(v))

    def u32(self, v):
        self.parts.append(_U32.pack(v))

    def u64(self, v):
        self.parts.append(_U64.pack(v))

    def str(self, s):
        data = s.encode("utf-8") if isinstance(s, str) else bytes(s)
        self.parts.append(_U32.pack(len(data)) + data)

    def blob(self, data):
        # Kept as its own part (a memoryview of the caller's buffer): sent without copying.
        self.parts.append(_U64.pack(len(data)))
        self.parts.append(data)

    def size(self):
        return sum(len(p) for p in self.parts)


class Reader:
    def __init__(self, data):
        self.data = data
        self.view = memoryview(data)
        self.pos = 0

    def take(self, n):
        if n > len(self.data) - self.pos:
            raise ValueError("malformed RPC response: truncated")
        out = self.view[self.pos:self.pos + n]
        self.pos += n
        return out

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return _U16.unpack(self.take(2))[0]

    def u32(self):
        return _U32.unpack(self.take(4))[0]

    def u64(self):
        return _U64.unpack(self.take(8))[0]

    def i64(self):
        return _I64.unpack(self.take(8))[0]

    def f64(self):
        return _F64.unpack(self.take(8))[0]

    def str(self):
        return bytes(self.take(self.u32())).decode("utf-8")

    def blob(self):
        return self.take(self.u64())  # a memoryview into the response buffer


def frame_header(length):
    if length > MAX_FRAME:
        raise ValueError("RPC message of %d bytes exceeds the %d-byte frame limit"
                         % (length, MAX_FRAME))
    return _U32.pack(MAGIC) + _U32.pack(length)
