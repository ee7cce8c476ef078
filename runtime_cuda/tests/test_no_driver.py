"""Every way CUDA can be unusable gives exist=False and a reason (from C++:
runtime.cuda.DriverStatus; from Python: tvm.runtime.cuda_driver_status), and CUDA work then
fails with a RuntimeError carrying that reason. Each case runs in a fresh process because the
driver state is probed once and cached. The fake driver (cuda_testing.py) stands in for a
real one to produce each failure; it tests host-side logic only."""

import ctypes.util

import pytest

from cuda_testing import FAKE_DRIVER, run_probe

PROBE = r"""
import json, tvm, numpy as np
import tvm_ffi
status = tvm.runtime.cuda_driver_status()
out = {"exist": tvm.cuda(0).exist, "status": status,
       "c_reason": str(tvm_ffi.get_global_func("runtime.cuda.DriverStatus")()["reason"]),
       "loaded": "tvm_runtime_cuda" in tvm.base._LOADED_LIBS,
       "name": tvm.cuda(0).device_name, "api_version": tvm.cuda(0).api_version,
       "libinfo_driver": tvm.support.libinfo().get("CUDA_DRIVER")}
try:
    tvm.runtime.empty((4,), "float32", tvm.cuda(0))
    out["alloc_error"] = None
except Exception as e:
    out["alloc_error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
"""


def probe(**env):
    return run_probe(env, PROBE)


def check_unavailable(out, reason_part):
    assert out["loaded"]
    assert out["exist"] is False
    assert out["status"]["available"] is False
    assert reason_part in out["status"]["reason"], out["status"]["reason"]
    assert out["c_reason"] == out["status"]["reason"]
    assert out["name"] is None  # attributes of a device that does not exist are unknown
    assert out["api_version"] >= 13000  # what we were built against: known without a driver
    assert out["libinfo_driver"] == "unavailable: " + out["status"]["reason"]
    assert out["alloc_error"].startswith("RuntimeError: cannot allocate CUDA memory: CUDA is "
                                         "not available: " + out["status"]["reason"])


def test_the_real_driver_state_of_this_machine():
    """Without TVM_CUDA_DRIVER_LIBRARY the runtime opens the system's libcuda.so.1. On a
    driverless machine dlopen fails and that is the reason given; where a driver is installed
    it is found, and CUDA is either usable or unavailable for a driver-side reason."""
    out = probe(TVM_CUDA_DRIVER_LIBRARY=None)
    assert out["status"]["library"] == "libcuda.so.1"
    if not ctypes.util.find_library("cuda"):
        check_unavailable(out, "libcuda.so.1: cannot open shared object file")
    elif out["status"]["available"]:
        assert out["exist"] is True and out["status"]["reason"] == ""
    else:
        assert "cannot load the CUDA driver" not in out["status"]["reason"], out["status"]["reason"]


def test_missing_library_path():
    out = probe(TVM_CUDA_DRIVER_LIBRARY="/nonexistent/libcuda.so.1")
    check_unavailable(out, "cannot load the CUDA driver: /nonexistent/libcuda.so.1")


def test_library_without_driver_symbols():
    out = probe(TVM_CUDA_DRIVER_LIBRARY="libm.so.6")
    check_unavailable(out, "lacks cuInit")


@pytest.mark.parametrize("code,text", [
    (100, "CUDA_ERROR_NO_DEVICE, 100"),
    (34, "stub library"),
    (803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803"),
    (804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804"),
    (999, "cuInit failed: CUDA_ERROR_UNKNOWN (999)"),
])
def test_cuinit_failures(code, text):
    out = probe(TVM_CUDA_DRIVER_LIBRARY=FAKE_DRIVER, FAKE_CUDA_INIT_RESULT=str(code))
    check_unavailable(out, text)


def test_old_driver():
    out = probe(TVM_CUDA_DRIVER_LIBRARY=FAKE_DRIVER, FAKE_CUDA_DRIVER_VERSION="12080")
    check_unavailable(out, "supports CUDA 12.8 (12080); this build needs 13000 or newer")
    assert out["status"]["driver_version"] == 12080


def test_no_devices():
    out = probe(TVM_CUDA_DRIVER_LIBRARY=FAKE_DRIVER, FAKE_CUDA_DEVICE_COUNT="0")
    check_unavailable(out, "reports no devices")


def test_available_with_the_fake():
    out = probe(TVM_CUDA_DRIVER_LIBRARY=FAKE_DRIVER)
    assert out["exist"] is True and out["status"]["available"] is True
    assert out["status"]["reason"] == "" and out["status"]["device_count"] == 1
    assert out["alloc_error"] is None
    assert out["libinfo_driver"] == "available (driver 13000, 1 device(s))"


def test_runtime_only_process_loads_the_backend():
    out = probe(TVM_USE_RUNTIME_LIB="1", TVM_CUDA_DRIVER_LIBRARY="/nonexistent/libcuda.so.1")
    check_unavailable(out, "/nonexistent/libcuda.so.1")
