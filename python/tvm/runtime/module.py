"""Loading compiled modules (shared libraries, VM executables) in this process."""

import os

import tvm_ffi


def load_module(path, fmt=""):  # noqa: ARG001 - TVM's signature: the format is the suffix
    """Loads a module file (a .so exported by the compiler, with any embedded bytecode).

    As in TVM, an object file (".o") or a tar of object files (".tar", from
    export_library("k.tar")) is first linked into a shared library next to it
    (tvm.contrib.cc.create_shared, linked against this process's libtvm_runtime/libtvm_ffi).

    The module is kept alive for the process, like tvm_ffi.load_module: functions taken from
    it may outlive the Python object.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError("cannot find file %s" % path)
    if path.endswith(".o") or path.endswith(".tar"):
        from ..contrib import cc, tar, utils
        from .executable import _lib_dirs

        files = [path]
        temp = None
        if path.endswith(".tar"):
            temp = utils.tempdir()
            files = tar.normalize_file_list_by_unpacking_tars(temp, [path])
        so = path + ".so"
        link = ["-L" + d for d in _lib_dirs()] + ["-ltvm_runtime", "-ltvm_ffi", "-lm"]
        try:
            cc.create_shared(so, files, options=link)
        finally:
            if temp is not None:
                temp.remove()
        path = so
    return tvm_ffi.load_module(path)
