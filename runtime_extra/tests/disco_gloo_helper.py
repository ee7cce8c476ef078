"""Functions the gloo tests run on workers (imported there with import_python_module): each
worker takes its own part of a point-to-point exchange, or loops on a collective."""

import tvm_ffi


def _f(name):
    return tvm_ffi.get_global_func(name)


def _rank():
    return int(_f("runtime.disco.worker_rank")())


@tvm_ffi.register_global_func("tests.disco_gloo.send_recv", override=True)
def _send_recv(buf, sender, receiver):
    """`sender` sends its `buf` to `receiver` (send_to_worker / recv_from_worker)."""
    rank = _rank()
    if rank == sender:
        _f("runtime.disco.send_to_worker")(buf, receiver)
    elif rank == receiver:
        _f("runtime.disco.recv_from_worker")(buf, sender)


@tvm_ffi.register_global_func("tests.disco_gloo.from_worker0", override=True)
def _from_worker0(buf, receiver):
    """Worker 0 sends, `receiver` takes it with recv_from_worker0."""
    rank = _rank()
    if rank == 0:
        _f("runtime.disco.send_to_worker")(buf, receiver)
    elif rank == receiver:
        _f("runtime.disco.recv_from_worker0")(buf)


@tvm_ffi.register_global_func("tests.disco_gloo.pipeline", override=True)
def _pipeline(buf):
    """Group g receives from group g-1 and sends to group g+1 (TVM's pipeline parallelism)."""
    groups = int(_f("runtime.disco.num_groups")())
    group = int(_f("runtime.disco.group_id")())
    if group > 0:
        _f("runtime.disco.recv_from_prev_group")(buf)
    if group < groups - 1:
        _f("runtime.disco.send_to_next_group")(buf)


@tvm_ffi.register_global_func("tests.disco_gloo.allreduce_loop", override=True)
def _allreduce_loop(send, recv, iterations):
    allreduce = _f("runtime.disco.allreduce")
    kind = tvm_ffi.Shape([0])
    for _ in range(iterations):
        allreduce(send, kind, True, recv)
