"""The RPC client: pure Python sockets, no native code needed on the client side."""

import socket
import struct
import threading
import weakref

from . import protocol as P


class RPCError(ConnectionError):
    """The connection failed or the server closed it (bad token, malformed frame...)."""


_ERROR_KINDS = {"ValueError": ValueError, "TypeError": TypeError, "KeyError": KeyError,
                "IndexError": IndexError, "AttributeError": AttributeError,
                "MemoryError": MemoryError, "AssertionError": AssertionError,
                "RuntimeError": RuntimeError}


def _dtype_triple(dtype):
    import tvm_ffi

    d = tvm_ffi.dtype(str(dtype))
    return d.type_code, d.bits, d.lanes


class RemoteObject:
    """An object living on the server, referenced by a session handle."""

    def __init__(self, session, handle, type_index):
        self._session = session
        self._handle = handle
        self.type_index = type_index
        # Free the server-side object when this proxy dies (if the session still lives).
        self._finalizer = weakref.finalize(self, RPCSession._free_quietly,
                                           weakref.ref(session), handle)


class RemoteFunction(RemoteObject):
    def __call__(self, *args):
        return self._session._call(self._handle, args)


class RemoteModule(RemoteObject):
    def get_function(self, name):
        w = P.Writer(P.OP_MODULE_GET_FUNCTION)
        w.u64(self._handle)
        w.str(name)
        return self._session._request(w)

    def __getitem__(self, name):
        f = self.get_function(name)
        if f is None:
            raise AttributeError("remote module has no function %r" % name)
        return f


class RemoteTensor(RemoteObject):
    def _info(self):
        w = P.Writer(P.OP_TENSOR_INFO)
        w.u64(self._handle)
        return self._session._request(w)

    @property
    def shape(self):
        return tuple(self._info()[0])

    @property
    def dtype(self):
        """The dtype as (type_code, bits, lanes)."""
        return self._info()[1]

    def numpy(self):
        import numpy as np

        shape, dtype, _ = self._info()
        w = P.Writer(P.OP_TENSOR_READ)
        w.u64(self._handle)
        data = self._session._request(w, view=True)
        # `data` is a fresh buffer owned by this array from now on: no extra copy.
        return np.frombuffer(data, dtype=_numpy_dtype(dtype)).reshape(shape)

    def copyfrom(self, array):
        import numpy as np

        shape, dtype, _ = self._info()
        arr = np.asarray(array, dtype=_numpy_dtype(dtype), order="C")
        if tuple(arr.shape) != tuple(shape):
            raise ValueError("copyfrom: shape %s does not match %s" % (arr.shape, tuple(shape)))
        w = P.Writer(P.OP_TENSOR_WRITE)
        w.u64(self._handle)
        w.blob(memoryview(arr).cast("B"))
        self._session._request(w)
        return self


_DTYPE_NAMES = {(2, 32, 1): "float32", (2, 64, 1): "float64", (2, 16, 1): "float16",
                (0, 32, 1): "int32", (0, 64, 1): "int64", (0, 8, 1): "int8",
                (1, 8, 1): "uint8", (6, 8, 1): "bool"}


def _numpy_dtype(triple):
    import numpy as np

    name = _DTYPE_NAMES.get(tuple(triple))
    if name is None:
        raise TypeError("no numpy dtype for %s" % (triple,))
    return np.bool_ if name == "bool" else np.dtype(name)


class RPCSession:
    """One connection to an RPC server. Thread-safe (requests are serialised)."""

    def __init__(self, host, port, key="", timeout=60.0):
        self._lock = threading.Lock()
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as err:
            raise RPCError("cannot connect to %s:%d: %s" % (host, port, err)) from None
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        w = P.Writer(P.OP_HELLO)
        w.u32(P.VERSION)
        w.str(key or "")
        self.server_name = self._request(w)

    # -- transport -----------------------------------------------------------------------
    def _recv_exact(self, n):
        # recv_into one preallocated buffer: large tensor reads are received without copies.
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self._sock.recv_into(view[got:], n - got)
            if not k:
                raise RPCError("the RPC server closed the connection (wrong token, protocol "
                               "error, or server stopped)")
            got += k
        return buf

    def _request(self, writer, view=False):
        with self._lock:
            if self._sock is None:
                raise RPCError("RPC session is closed")
            try:
                self._sock.sendall(P.frame_header(writer.size()))
                for part in writer.parts:  # no join: large blobs go out as they are
                    self._sock.sendall(part)
                magic, length = struct.unpack("<II", self._recv_exact(8))
                if magic != P.MAGIC or length > P.MAX_FRAME:
                    raise RPCError("malformed RPC response header")
                reader = P.Reader(self._recv_exact(length))
            except OSError as err:
                self._close_socket()
                raise RPCError("RPC connection failed: %s" % err) from None
            except RPCError:
                self._close_socket()
                raise
        status = reader.u8()
        if status == 1:
            kind, message = reader.str(), reader.str()
            raise _ERROR_KINDS.get(kind, RuntimeError)("[remote] %s" % message)
        return self._read_value(reader, view=view)

    def _close_socket(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def close(self):
        with self._lock:
            self._close_socket()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @staticmethod
    def _free_quietly(session_ref, handle):
        session = session_ref()
        if session is None or session._sock is None:
            return
        try:
            w = P.Writer(P.OP_FREE)
            w.u64(handle)
            session._request(w)
        except Exception:  # noqa: BLE001 - best effort at garbage collection
            pass

    # -- values --------------------------------------------------------------------------
    def _write_value(self, w, v, depth=0):
        import tvm_ffi

        if depth > 15:
            raise ValueError("values nest too deep for RPC")
        if v is None:
            w.u8(P.T_NONE)
        elif isinstance(v, bool):
            w.u8(P.T_BOOL)
            w.u8(1 if v else 0)
        elif isinstance(v, int):
            if not -(1 << 63) <= v < (1 << 63):
                raise OverflowError("RPC ints are int64")
            w.u8(P.T_INT)
            w.parts.append(struct.pack("<q", v))
        elif isinstance(v, float):
            w.u8(P.T_FLOAT)
            w.parts.append(struct.pack("<d", v))
        elif isinstance(v, tvm_ffi.dtype):  # a str subclass: test before str
            w.u8(P.T_DTYPE)
            w.parts.append(struct.pack("<BBH", v.type_code, v.bits, v.lanes))
        elif isinstance(v, str):
            w.u8(P.T_STR)
            w.str(v)
        elif isinstance(v, (bytes, bytearray)):
            w.u8(P.T_BYTES)
            w.blob(v)
        elif isinstance(v, RemoteObject):
            if v._session is not self:
                raise ValueError("remote object belongs to another session")
            w.u8(P.T_HANDLE)
            w.u64(v._handle)
        elif isinstance(v, tvm_ffi.Device):
            w.u8(P.T_DEVICE)
            w.u32(int(v.dlpack_device_type()))
            w.u32(v.index)
        elif isinstance(v, (list, tuple)):
            w.u8(P.T_ARRAY)
            w.u32(len(v))
            for item in v:
                self._write_value(w, item, depth + 1)
        else:
            raise TypeError("cannot send %s over RPC" % type(v).__name__)

    def _read_value(self, r, depth=0, view=False):
        if depth > 16:
            raise ValueError("malformed RPC response: values nest too deep")
        tag = r.u8()
        if tag == P.T_NONE:
            return None
        if tag == P.T_INT:
            return r.i64()
        if tag == P.T_BOOL:
            return r.u8() != 0
        if tag == P.T_FLOAT:
            return r.f64()
        if tag == P.T_STR:
            return r.str()
        if tag == P.T_BYTES:
            blob = r.blob()
            return blob if view else bytes(blob)
        if tag == P.T_DEVICE:
            import tvm_ffi

            return tvm_ffi.Device(r.u32(), r.u32())
        if tag == P.T_DTYPE:
            return (r.u8(), r.u8(), r.u16())
        if tag == P.T_SHAPE:
            return tuple(r.i64() for _ in range(r.u32()))
        if tag == P.T_ARRAY:
            return [self._read_value(r, depth + 1) for _ in range(r.u32())]
        if tag == P.T_HANDLE:
            handle, type_index = r.u64(), r.u32()
            cls = {68: RemoteFunction, 70: RemoteTensor, 73: RemoteModule}.get(type_index, RemoteObject)
            return cls(self, handle, type_index)
        raise ValueError("malformed RPC response: unknown value tag %d" % tag)

    # -- API -----------------------------------------------------------------------------
    def _call(self, handle, args):
        w = P.Writer(P.OP_CALL)
        w.u64(handle)
        w.u32(len(args))
        for a in args:
            self._write_value(w, a)
        return self._request(w)

    def get_function(self, name):
        """A remote global function, or None."""
        w = P.Writer(P.OP_GET_GLOBAL)
        w.str(name)
        return self._request(w)

    def upload(self, data_or_path, target=None):
        """Sends a file (path or bytes) into the server's session folder; returns its name."""
        import os

        if isinstance(data_or_path, (bytes, bytearray)):
            if not target:
                raise ValueError("upload of bytes needs a target file name")
            data = bytes(data_or_path)
        else:
            with open(data_or_path, "rb") as f:
                data = f.read()
            target = target or os.path.basename(data_or_path)
        w = P.Writer(P.OP_UPLOAD)
        w.str(target)
        w.blob(data)
        self._request(w)
        return target

    def load_module(self, name):
        """Loads a file uploaded before; returns a RemoteModule."""
        w = P.Writer(P.OP_LOAD_MODULE)
        w.str(name)
        return self._request(w)

    def device(self, dev_type, dev_id=0):
        import tvm_ffi

        return tvm_ffi.device(dev_type, dev_id)

    def cpu(self, dev_id=0):
        return self.device("cpu", dev_id)

    def empty(self, shape, dtype="float32", device=None):
        import tvm_ffi

        device = device or self.cpu()
        w = P.Writer(P.OP_TENSOR_EMPTY)
        w.u8(P.T_SHAPE)
        w.u32(len(shape))
        for s in shape:
            w.parts.append(struct.pack("<q", int(s)))
        self._write_value(w, tvm_ffi.dtype(str(dtype)))
        self._write_value(w, device)
        return self._request(w)

    def tensor(self, array, device=None):
        """A remote tensor holding a copy of numpy array `array`."""
        import numpy as np

        array = np.asarray(array, order="C")
        dtype = "bool" if array.dtype == np.bool_ else str(array.dtype)
        return self.empty(array.shape, dtype, device).copyfrom(array)


def connect(host, port, key="", timeout=60.0):
    """Opens a session with an RPC server (`key` is the server's token, if it has one)."""
    return RPCSession(host, port, key=key, timeout=timeout)
