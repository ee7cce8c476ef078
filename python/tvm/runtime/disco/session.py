"""Session, DRef, DPackedFunc, DModule: the controller's view of a Disco session.

Every call is sent to all workers and returns at once (a DRef names the result register on
every worker); `sync_worker_0()` / `_sync_all()` wait. A worker's exception is raised at the
next wait as DiscoWorkerError; a dead or silent worker ends the next wait within `timeout`
seconds (Session.set_timeout) with DiscoWorkerLostError / DiscoTimeoutError.
"""

import tvm_ffi

from .errors import DiscoNotAvailableError

# TVM's ReduceKind numbers.
REDUCE_OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "avg": 4}

_TYPE_KEYS = ("runtime.disco.DRef", "runtime.disco.Session", "runtime.disco.ThreadedSession",
              "runtime.disco.ProcessSession")


def available():
    """True when libtvm_runtime_extra (the Disco runtime) is loaded in this process."""
    return tvm_ffi.get_global_func("runtime.disco.SessionThreaded", allow_missing=True) is not None


_FUNCS = {}


def _f(name):
    # Cached: a registry lookup per call was 40% of a call_packed's Python time, and the
    # library's globals never change once loaded (it is never unloaded).
    f = _FUNCS.get(name)
    if f is not None:
        return f
    f = tvm_ffi.get_global_func(name, allow_missing=True)
    if f is not None:
        _FUNCS[name] = f
    else:
        if not available():
            raise DiscoNotAvailableError(
                "Disco needs libtvm_runtime_extra.so, which is not loaded (tvm.base._LOADED_LIBS "
                "has no tvm_runtime_extra): it was left out of this build "
                "(--//config:runtime_extra=false) or is missing next to libtvm_runtime.so")
        raise DiscoNotAvailableError("%s is not registered" % name)
    return f


def _register(key):
    """register_object when the library defined the type; a plain class otherwise."""
    def deco(cls):
        if available():
            return tvm_ffi.register_object(key)(cls)
        return cls
    return deco


@_register("runtime.disco.DRef")
class DRef(tvm_ffi.Object):
    """A register on every worker of a session (its value may differ per worker)."""

    def debug_get_from_remote(self, worker_id):
        """The value on worker `worker_id` (a tensor comes back as a host copy)."""
        return _f("runtime.disco.DRefDebugGetFromRemote")(self, int(worker_id))

    def debug_copy_from(self, worker_id, value):
        """Copies `value` (numpy array or Tensor) into this register's tensor on one worker."""
        from ..tensor import Tensor, tensor  # numpy only when used

        if not isinstance(value, Tensor):
            value = tensor(value)
        _f("runtime.disco.DRefDebugCopyFrom")(self, int(worker_id), value)

    @property
    def reg_id(self):
        return int(_f("runtime.disco.DRefGetRegId")(self))


class DPackedFunc(DRef):
    """A function on every worker; calling it runs it everywhere and returns a DRef."""

    def __init__(self, dref, session):  # pylint: disable=super-init-not-called
        self.__move_handle_from__(dref)
        self.session = session

    def __call__(self, *args):
        return self.session.call_packed(self, *args)


class DModule(DRef):
    """A module on every worker (load_vm_module); `mod["name"]` is a DPackedFunc."""

    def __init__(self, dref, session):  # pylint: disable=super-init-not-called
        self.__move_handle_from__(dref)
        self.session = session

    def __getitem__(self, name):
        func = self.session.get_global_func("ffi.ModuleGetFunction")
        return DPackedFunc(func(self, name, False), self.session)


def _shape(shape):
    if isinstance(shape, int):
        shape = (shape,)
    return tvm_ffi.Shape([int(d) for d in shape])


@_register("runtime.disco.Session")
class Session(tvm_ffi.Object):
    """A Disco session: a controller and `num_workers` workers (threads or processes)."""

    @property
    def num_workers(self):
        return int(_f("runtime.disco.SessionGetNumWorkers")(self))

    @property
    def num_groups(self):
        return int(_f("runtime.disco.SessionGetNumGroups")(self))

    @property
    def timeout(self):
        """Seconds any wait on the workers may take before DiscoTimeoutError (default 60)."""
        return float(_f("runtime.disco.SessionGetTimeout")(self))

    def set_timeout(self, seconds):
        _f("runtime.disco.SessionSetTimeout")(self, float(seconds))

    def get_global_func(self, name):
        """The global `name` on every worker (missing: DiscoWorkerError at the next wait)."""
        return DPackedFunc(_f("runtime.disco.SessionGetGlobalFunc")(self, str(name)), self)

    def call_packed(self, func, *args):
        """Calls DRef `func` with `args` on every worker; returns the result DRef.
        Arguments: None, bool, int, float, str, bytes, DataType, Device, Shape, DRef."""
        return _f("runtime.disco.SessionCallPacked")(self, 0, 0, func, *args)

    def empty(self, shape, dtype, device=None, worker0_only=False, in_group=True):
        """A new tensor on every worker (only group leaders / worker 0 with worker0_only)."""
        func = self._builtin("runtime.disco.empty")
        return func(_shape(shape), tvm_ffi.dtype(str(dtype)), device, bool(worker0_only),
                    bool(in_group))

    def import_python_module(self, module_name):
        """Imports a Python module on every worker (registers its globals there)."""
        self._builtin("runtime.disco._import_python_module")(str(module_name))

    def load_vm_module(self, path, device=None):
        """Loads a compiled .so on every worker; a Relax program runs in a VM on `device`
        (the worker's device by default)."""
        func = self._builtin("runtime.disco.load_vm_module")
        return DModule(func(str(path), device), self)

    def copy_to_worker_0(self, host_array, remote_array=None):
        """Copies a host tensor (or numpy array) into worker 0's tensor; returns its DRef."""
        host_array = _as_tensor(host_array)
        if remote_array is None:
            remote_array = self.empty(tuple(host_array.shape), host_array.dtype, worker0_only=True)
        _f("runtime.disco.SessionCopyToWorker0")(self, host_array, remote_array)
        return remote_array

    def copy_from_worker_0(self, host_array, remote_array):
        """Worker 0 copies its tensor into `host_array` (complete after sync_worker_0())."""
        _f("runtime.disco.SessionCopyFromWorker0")(self, host_array, remote_array)

    def _sync_worker(self, worker_id):
        _f("runtime.disco.SessionSyncWorker")(self, int(worker_id))

    def sync_worker_0(self):
        """Waits until worker 0 has run every command sent so far."""
        self._sync_worker(0)

    def _sync_all(self):
        for i in range(self.num_workers):
            self._sync_worker(i)

    def shutdown(self):
        """Stops the workers (bounded) and reaps processes. Idempotent."""
        _f("runtime.disco.SessionShutdown")(self)

    def init_ccl(self, ccl, *device_ids):
        """Initialises collective library `ccl` on every worker (runtime.disco.<ccl>.init_ccl)."""
        _f("runtime.disco.SessionInitCCL")(self, str(ccl), tvm_ffi.Shape([int(d) for d in device_ids]))

    # Collectives (TVM's names and argument order on the wire; they need init_ccl first).
    def broadcast(self, src, dst=None, in_group=True):
        src = _as_tensor(src)
        if dst is None:
            dst = self.empty(tuple(src.shape), src.dtype)
        self.broadcast_from_worker0(self.copy_to_worker_0(src), dst, in_group)
        return dst

    def broadcast_from_worker0(self, src, dst, in_group=True):
        self._builtin("runtime.disco.broadcast_from_worker0")(src, bool(in_group), dst)

    def scatter(self, src, dst=None, in_group=True):
        src = _as_tensor(src)
        if src.shape[0] != self.num_workers:
            raise ValueError("scatter: src.shape[0] must be num_workers (%d), got %d"
                             % (self.num_workers, src.shape[0]))
        if dst is None:
            dst = self.empty(tuple(src.shape[1:]), src.dtype)
        self.scatter_from_worker0(self.copy_to_worker_0(src), dst, in_group)
        return dst

    def scatter_from_worker0(self, from_array, to_array, in_group=True):
        self._builtin("runtime.disco.scatter_from_worker0")(from_array, bool(in_group), to_array)

    def gather_to_worker0(self, from_array, to_array, in_group=True):
        self._builtin("runtime.disco.gather_to_worker0")(from_array, bool(in_group), to_array)

    def allreduce(self, src, dst, op="sum", in_group=True):
        if op not in REDUCE_OPS:
            raise ValueError("allreduce: op must be one of %s, got %r" % (sorted(REDUCE_OPS), op))
        self._builtin("runtime.disco.allreduce")(src, tvm_ffi.Shape([REDUCE_OPS[op]]),
                                                 bool(in_group), dst)

    def allgather(self, src, dst, in_group=True):
        self._builtin("runtime.disco.allgather")(src, bool(in_group), dst)

    def _builtin(self, name):
        # One DRef per builtin and session: avoids a get_global_func round per call.
        cache = self.__dict__.setdefault("_builtins", {})
        func = cache.get(name)
        if func is None:
            func = cache[name] = self.get_global_func(name)
        return func

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()


def _as_tensor(value):
    from ..tensor import Tensor, tensor

    return value if isinstance(value, Tensor) else tensor(value)


@_register("runtime.disco.ThreadedSession")
class ThreadedSession(Session):
    """Workers are threads of this process."""

    def __init__(self, num_workers, num_groups=1):  # pylint: disable=super-init-not-called
        self.__init_handle_by_constructor__(_f("runtime.disco.SessionThreaded"),
                                            int(num_workers), int(num_groups))


@_register("runtime.disco.ProcessSession")
class ProcessSession(Session):
    """Worker 0 is a thread here; workers 1..n-1 are `python -m <entrypoint>` processes."""

    def __init__(self, num_workers, num_groups=1, entrypoint="tvm.exec.disco_worker"):
        # pylint: disable=super-init-not-called
        self.__init_handle_by_constructor__(_f("runtime.disco.SessionProcess"), int(num_workers),
                                            int(num_groups), "runtime.disco.create_process_pool",
                                            str(entrypoint))


@tvm_ffi.register_global_func("runtime.disco._import_python_module", override=True)
def _import_python_module(module_name):
    import importlib

    importlib.import_module(module_name)
