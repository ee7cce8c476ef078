"""A Disco worker process:
`python -m tvm.exec.disco_worker ID N GROUPS READ_FD WRITE_FD [PPID [LOCAL_ID]]`.

Started by ProcessSession's pool (tvm.runtime.disco.process_pool) or by a SocketSession's
remote node (tvm.exec.disco_remote_socket_session, which passes LOCAL_ID), never by hand. It runs the
controller's commands until shutdown, until the link closes, or until the controller dies
(PR_SET_PDEATHSIG, armed in runtime.disco.WorkerProcess). Also registers the functions the
Disco tests call on workers (`tests.disco.*`), as TVM's worker module does.
"""

import sys

import tvm  # noqa: F401  (loads the libraries, libtvm_runtime_extra included)
import tvm_ffi


@tvm_ffi.register_global_func("tests.disco.add_one", override=True)
def _add_one(x):
    return x + 1


@tvm_ffi.register_global_func("tests.disco.add_one_float", override=True)
def _add_one_float(x):
    return x + 0.5


@tvm_ffi.register_global_func("tests.disco.str", override=True)
def _str(x):
    return x + "_suffix"


@tvm_ffi.register_global_func("tests.disco.shape_tuple", override=True)
def _shape_tuple(x):
    return tvm_ffi.Shape(list(x) + [4, 5])


def main(argv):
    if len(argv) not in (5, 6, 7):
        sys.stderr.write(__doc__)
        return 2
    args = [int(a) for a in argv]
    from tvm.runtime import disco

    if not disco.available():
        sys.stderr.write("tvm.exec.disco_worker: libtvm_runtime_extra is not loaded\n")
        return 1
    tvm_ffi.get_global_func("runtime.disco.WorkerProcess")(*args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
