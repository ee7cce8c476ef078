"""tvm.target: Target("llvm -mtriple=... -mcpu=... -mattr=... [-fast-math...]") (a
libtvm_compiler object), or a GPU target: Target("cuda -arch=sm_90") (also spelled
"nvptx -mcpu=sm_90"; the architecture defaults to sm_80), optionally with the host target
of the code that launches the kernels: Target("cuda", host="llvm") (the default host).

Floating point: a*b+c may be fused into one FMA (one rounding instead of two) by default,
as apache-tvm's LLVM targets do (its target machine allows FP op fusion), on CPU and CUDA
targets alike (NVPTX: the "contract" flag; nvcc / NVRTC: their default --fmad=true, turned
off with the option below, tvm.target.cuda_backend.cuda_c_options); nothing else is
relaxed (no reassociation, NaN/inf/signed zeros kept). `-fast-math-contract=false` keeps
every multiply and add separately rounded (strict IEEE). Options relax it further the way
LLVM's fast-math flags do: `-fast-math` (all of them) or any of `-fast-math-reassoc`,
`-fast-math-nnan`, `-fast-math-ninf`, `-fast-math-nsz`, `-fast-math-arcp`, `-fast-math-afn`.
"""

from .._compiler_guard import require_compiler

require_compiler("tvm.target")

import platform
import threading

from tvm_ffi import register_object

from ..ir import Node, _api

_SCOPE = threading.local()


_HOST_CPU = []


def _host_cpu():
    """(triple, "+feature,..." string) of this machine, asked of LLVM once: legalization asks
    for every kernel (fp32_lanes), 0.3 ms a time (BERT-class: 70 times)."""
    if not _HOST_CPU:
        import llvmlite.binding as llvm

        _HOST_CPU.append((llvm.get_process_triple(), llvm.get_host_cpu_features().flatten()))
    return _HOST_CPU[0]


_X86_VECTOR_FLAGS = []


def _x86_vector_flags():
    """{"avx", "avx512f"} & this x86-64 Linux machine's CPU flags (/proc/cpuinfo: the kernel
    lists a flag only when the OS saves its registers, as LLVM's host detection checks), or
    None elsewhere. What fp32_lanes needs, without waiting for llvmlite's library to load
    (20-35 ms at the start of a process's first build, while legalization would wait)."""
    if not _X86_VECTOR_FLAGS:
        flags = None
        if platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64"):
            try:
                with open("/proc/cpuinfo") as f:
                    for line in f:
                        if line.startswith("flags"):
                            flags = set(line.split(":", 1)[1].split()) & {"avx", "avx512f"}
                            break
            except OSError:
                flags = None
        _X86_VECTOR_FLAGS.append(flags)
    return _X86_VECTOR_FLAGS[0]


def _host_fp32_lanes():
    flags = _x86_vector_flags()
    if flags is not None:
        return 16 if "avx512f" in flags else 8 if "avx" in flags else 4
    return _lanes_of(_host_cpu()[1], "")


def _lanes_of(features, triple):
    if "+avx512f" in features:
        return 16
    if "+avx" in features or (not features and (not triple or triple.startswith("x86_64"))):
        return 8  # a named x86-64 CPU without -mattr: assume AVX2, the common floor
    return 4


@register_object("target.Target")
class Target(Node):
    """A compilation target: "llvm" (the CPU, through LLVM) or "cuda"/"nvptx" (NVIDIA GPUs,
    PTX through LLVM's NVPTX backend; the host code is compiled for `host`)."""

    def __init__(self, target="llvm", host=None):
        if isinstance(target, Target):
            if host is None and target.is_device:
                host = target.host
            target = str(target)
        if isinstance(target, dict):
            target = dict(target)
            if host is None and "host" in target:
                host = target.pop("host")
            target = " ".join([target.get("kind", "llvm")] +
                              ["-%s=%s" % (k, v) for k, v in target.items() if k != "kind"])
        if not isinstance(target, str):
            raise TypeError("Target expects a string, a dict or a Target, got %r"
                            % type(target).__name__)
        if host is None:
            self.__init_handle_by_constructor__(_api("target.Target"), target)
        else:
            self.__init_handle_by_constructor__(_api("target.TargetWithHost"),
                                                _api("target.Target")(target), Target(host))

    # ---- `with Target(...)`: the target passes consult (TVM's Target.current) ----
    def __enter__(self):
        if not hasattr(_SCOPE, "stack"):
            _SCOPE.stack = []
        _SCOPE.stack.append(self)
        return self

    def __exit__(self, *exc):
        _SCOPE.stack.pop()

    @staticmethod
    def current(allow_none=True):
        """The innermost target entered with `with`, or None (a ValueError when
        allow_none=False)."""
        stack = getattr(_SCOPE, "stack", [])
        if stack:
            return stack[-1]
        if not allow_none:
            raise ValueError("Target.current: no target is in scope (use `with Target(...)`)")
        return None

    @property
    def fp32_lanes(self):
        """float32 lanes of the CPU target's widest vector unit (16 with AVX-512, 8 with AVX,
        4 otherwise: NEON, SSE): what schedules size their register tiles by. The host's
        features when the target names no CPU of its own; a named x86-64 CPU without -mattr
        counts as AVX2."""
        features, triple = self.mattr, self.mtriple
        if not self.mcpu and not features:
            if not triple:
                return _host_fp32_lanes()
            host_triple, host_features = _host_cpu()
            if triple == host_triple:
                features = host_features
        return _lanes_of(features, triple)

    @property
    def kind_name(self):
        return str(self.kind)

    @property
    def is_device(self):
        """True for GPU kinds (cuda, nvptx), whose kernels are launched by host code."""
        return str(self.kind) in ("cuda", "nvptx")

    @property
    def arch(self):
        """The GPU architecture ("sm_90") of a device target; "" for CPU targets."""
        return self._attr("arch")

    def _attr(self, key):
        return str(self.attrs[key]) if key in self.attrs else ""

    @property
    def mtriple(self):
        return self._attr("mtriple")

    @property
    def mcpu(self):
        return self._attr("mcpu")

    @property
    def mattr(self):
        return self._attr("mattr")

    @property
    def fast_math_flags(self):
        """The LLVM fast-math flags the target asks for, comma-separated ("" for none);
        "contract" unless `-fast-math-contract=false` (see the module's docstring)."""
        flags = []
        keys = [str(k) for k in self.attrs.keys()]
        for key in sorted(keys):
            if not key.startswith("fast-math"):
                continue
            value = str(self.attrs[key]).lower()
            if value not in ("true", "1", "on", "false", "0", "off"):
                raise ValueError("target option -%s=%s: expected a boolean" % (key, value))
            if value in ("false", "0", "off"):
                continue
            flags.append("fast" if key == "fast-math" else key[len("fast-math-"):])
        if "fast-math-contract" not in keys and "fast" not in flags:
            flags.insert(0, "contract")
        return ",".join(flags)

    def __str__(self):
        return str(_api("target.TargetStr")(self))

    def __repr__(self):
        return "Target(%r)" % str(self)
