"""`tvm.compile` and `tvm.build` (implemented in tvm.driver.build_module)."""

from .driver.build_module import Executable, build, compile  # noqa: F401,A004
