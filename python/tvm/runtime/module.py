"""Loading compiled modules (shared libraries, VM executables) in this process."""

import tvm_ffi


def load_module(path):
    """Loads a module file (a .so exported by the compiler, with any embedded bytecode).

    The module is kept alive for the process, like tvm_ffi.load_module: functions taken from
    it may outlive the Python object.
    """
    return tvm_ffi.load_module(path)
