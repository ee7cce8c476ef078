"""The typed errors of a Disco session (FFI error kinds registered with tvm_ffi)."""

import re

import tvm_ffi


class DiscoError(RuntimeError):
    """Base of the Disco errors."""


class DiscoNotAvailableError(DiscoError):
    """libtvm_runtime_extra is not loaded (not built, or left out of this installation)."""


@tvm_ffi.register_error("DiscoWorkerError")
class DiscoWorkerError(DiscoError):
    """A worker raised: `worker_id`, `kind` (its error's kind, e.g. "ValueError"), `command`
    (the Disco command that failed) and `worker_message`. The session stays usable."""

    _PATTERN = re.compile(r"worker (-?\d+) raised (\S+) in (\S+): (.*)", re.S)

    def __init__(self, message=""):
        super().__init__(message)
        m = self._PATTERN.match(str(message))
        self.worker_id = int(m.group(1)) if m else None
        self.kind = m.group(2) if m else None
        self.command = m.group(3) if m else None
        self.worker_message = m.group(4) if m else str(message)


@tvm_ffi.register_error("DiscoWorkerLostError")
class DiscoWorkerLostError(DiscoError, ConnectionError):
    """A worker exited, was killed or stopped reading: the session is unusable from now on."""


@tvm_ffi.register_error("DiscoTimeoutError")
class DiscoTimeoutError(DiscoError, TimeoutError):
    """A worker did not answer within the session's timeout: the session is unusable."""


@tvm_ffi.register_error("DiscoProtocolError")
class DiscoProtocolError(DiscoError):
    """A worker sent something the controller did not expect: the session is unusable."""
