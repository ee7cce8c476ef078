"""`tvm.compile` and `tvm.build` (implemented in tvm.driver.build_module)."""

from .driver.build_module import build, compile  # noqa: F401,A004
from .runtime.executable import Executable  # noqa: F401
