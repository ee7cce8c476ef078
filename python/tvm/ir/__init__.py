"""tvm.ir: IRModule, structural equality/hashing and the text printer (all in libtvm_compiler)."""

from .._compiler_guard import require_compiler

require_compiler("tvm.ir")

import tvm_ffi
from tvm_ffi import Object, register_object
from tvm_ffi.function import GLOBALS_GENERATION

from .. import base as _base  # noqa: F401  (loads libtvm_compiler)


_API_CACHE = {}
_API_GENERATION = [-1]


def _api(name):
    """The global function `name` of the compiler. Lookups are cached (a model's compile makes
    tens of thousands; each was a C call and a new Function) until Python registers or
    removes a global (tvm_ffi.function.GLOBALS_GENERATION)."""
    if _API_GENERATION[0] != GLOBALS_GENERATION[0]:
        _API_CACHE.clear()
        _API_GENERATION[0] = GLOBALS_GENERATION[0]
    f = _API_CACHE.get(name)
    if f is not None:
        return f
    f = tvm_ffi.get_global_func(name, allow_missing=True)
    if f is not None:
        _API_CACHE[name] = f
    if f is None:
        if _base.RUNTIME_ONLY:  # the first compiler call of a runtime-only process
            from .._compiler_guard import error
            raise error(name)
        raise RuntimeError(
            "%s is not registered: libtvm_compiler is not loaded (runtime-only mode?)" % name)
    return f


class Node(Object):
    """Base of Python wrappers of IR nodes: printing, structural comparison."""

    def __repr__(self):
        return _api("ir.AsText")(self)

    def __str__(self):
        return self.__repr__()

    def script(self):
        return _api("ir.AsText")(self)


class Op(Node):
    """An operator by name (TVM's tvm.ir.Op): `tvm.ir.Op.get("relax.add")`. The registered
    node class is tvm.relax.Op (a subclass, since an operator is also a Relax expression), so
    `call.op == tvm.ir.Op.get("relax.add")` holds for the op of a call."""

    @staticmethod
    def get(name):
        return _api("relax.Op")(str(name))


def structural_equal(lhs, rhs, map_free_vars=False):
    """Structural equality of IR nodes (Vars compared by binding)."""
    return bool(_api("ir.StructuralEqual")(lhs, rhs, map_free_vars))


def structural_hash(node, map_free_vars=False):
    """A hash consistent with structural_equal."""
    return int(_api("ir.StructuralHash")(node, map_free_vars))


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    if not structural_equal(lhs, rhs, map_free_vars):
        raise ValueError("StructuralEqual check failed:\n%s\nvs\n%s"
                         % (_api("ir.AsText")(lhs), _api("ir.AsText")(rhs)))


def save_json(node):
    """JSON text of an IR value (nodes, arrays, maps); see docs/compiler.md."""
    return str(_api("ir.SaveJSON")(node))


def load_json(text):
    """The IR value saved by save_json (shared nodes stay shared)."""
    return _api("ir.LoadJSON")(str(text))


@register_object("ir.IRModule")
class IRModule(Node):
    """A set of named PrimFuncs."""

    def __init__(self, functions=None):
        functions = dict(functions or {})
        self.__init_handle_by_constructor__(_api("ir.IRModule"), functions)

    def __getitem__(self, name):
        return self.functions[name]

    def __contains__(self, name):
        return name in self.functions

    @staticmethod
    def from_expr(func, name="main"):
        return IRModule({name: func})


__all__ = ["IRModule", "Node", "assert_structural_equal", "load_json", "save_json",
           "structural_equal", "structural_hash"]
