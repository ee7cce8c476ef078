"""tvm.target: Target("llvm -mtriple=... -mcpu=... -mattr=...") (a libtvm_compiler object)."""

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

    def __str__(self):
        return str(_api("target.TargetStr")(self))

    def __repr__(self):
        return "Target(%r)" % str(self)
