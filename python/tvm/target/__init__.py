"""tvm.target: Target("llvm -mtriple=... -mcpu=... -mattr=... [-fast-math...]") (a
libtvm_compiler object).

Floating point follows IEEE by default (no FMA contraction, no reassociation). Options relax
it the way LLVM's fast-math flags do: `-fast-math` (all of them) or any of
`-fast-math-contract` (fuse a*b+c into FMA), `-fast-math-reassoc`, `-fast-math-nnan`,
`-fast-math-ninf`, `-fast-math-nsz`, `-fast-math-arcp`, `-fast-math-afn`.
"""

from .._compiler_guard import require_compiler

require_compiler("tvm.target")

from tvm_ffi import register_object

from ..ir import Node, _api


@register_object("target.Target")
class Target(Node):
    """A compilation target. Only the CPU kind "llvm" is compiled at present."""

    def __init__(self, target="llvm"):
        if isinstance(target, Target):
            target = str(target)
        if isinstance(target, dict):
            target = " ".join([target.get("kind", "llvm")] +
                              ["-%s=%s" % (k, v) for k, v in target.items() if k != "kind"])
        self.__init_handle_by_constructor__(_api("target.Target"), str(target))

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
        """The LLVM fast-math flags the target asks for, comma-separated ("" for none)."""
        flags = []
        for key in sorted(str(k) for k in self.attrs.keys()):
            if not key.startswith("fast-math"):
                continue
            value = str(self.attrs[key]).lower()
            if value not in ("true", "1", "on", "false", "0", "off"):
                raise ValueError("target option -%s=%s: expected a boolean" % (key, value))
            if value in ("false", "0", "off"):
                continue
            flags.append("fast" if key == "fast-math" else key[len("fast-math-"):])
        return ",".join(flags)

    def __str__(self):
        return str(_api("target.TargetStr")(self))

    def __repr__(self):
        return "Target(%r)" % str(self)
