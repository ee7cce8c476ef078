"""A module built against apache-tvm-ffi's headers loads against our library."""

import ctypes
import os


def test_reference_module_links_our_library():
    core = ctypes.CDLL(os.path.abspath(os.environ["SMOKE_CORE"]))
    module = ctypes.CDLL(os.path.abspath(os.environ["SMOKE_REFERENCE_MODULE"]))
    assert module.smoke_reference_any_size() == 16
    assert module.smoke_reference_core_count() == core.smoke_core_count()


def test_reference_dir_is_passed():
    ref = os.environ["TVM_FFI_REFERENCE_DIR"]
    assert os.path.isfile(os.path.join(ref, "tvm_ffi", "include", "tvm", "ffi", "c_api.h"))
