"""python/tvm_ffi depends one way: no module imports (at module level or inside a function) a
module that imports it back, directly or through others. Value conversion (_any) sits at the
bottom; the types above it register their converters with it."""

import ast
import os

import tvm_ffi

PKG = os.path.dirname(tvm_ffi.__file__)


def _edges():
    edges = {}
    for name in os.listdir(PKG):
        if not name.endswith(".py"):
            continue
        mod = name[:-3]
        tree = ast.parse(open(os.path.join(PKG, name)).read())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tvm_ffi."):
                deps.add(node.module.split(".")[1])
        deps.discard(mod)
        edges[mod] = deps
    return edges


def _cycle(edges):
    state = {}
    stack = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(edges.get(m, ())):
            if d not in edges:
                continue
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_no_import_cycle():
    edges = _edges()
    edges.pop("__init__", None)  # the package imports everything; nothing imports it back
    assert _cycle(edges) is None, " -> ".join(_cycle(edges))


def test_value_conversion_is_at_the_bottom():
    edges = _edges()
    allowed = {"_cabi", "_frame", "_lib"}
    assert edges["_any"] <= allowed, edges["_any"]
