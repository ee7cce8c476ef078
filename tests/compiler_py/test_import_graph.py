"""The Python import graph of python/tvm: no cycles, and the layering of the compile path.

Every module is parsed (ast); its imports are collected at module level AND inside functions
and classes (lazy imports count: a cycle through a lazy import is still a cycle in the design),
relative imports resolved against the package. `from pkg import name` is an edge to the
submodule pkg.name when there is one, else to pkg. Imports under `if TYPE_CHECKING:` do not
count. The graph is checked for:

  * cycles between modules (each strongly connected component is reported with one cycle
    through it, edge by edge with file and line);
  * layering: nothing under tvm.relax, tvm.tir, tvm.runtime, tvm.te, tvm.topi, tvm.target
    imports tvm.driver (the entry points sit above them); the frontends (onnx, torch) do not
    import each other, and the kernels they share (tvm.relax.frontend.kernels) import
    neither.
"""

import ast
import os

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                     "python"))
PACKAGE = "tvm"
BELOW_DRIVER = ("tvm.relax", "tvm.tir", "tvm.runtime", "tvm.te", "tvm.topi", "tvm.target")
FRONTENDS = ("tvm.relax.frontend.onnx", "tvm.relax.frontend.torch")
SHARED_KERNELS = "tvm.relax.frontend.kernels"


def _modules():
    """module name -> (path, is_package) for every .py under python/tvm."""
    mods = {}
    for dirpath, dirs, files in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(dirpath, ROOT).replace(os.sep, ".")
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            if f == "__init__.py":
                mods[rel] = (os.path.join(dirpath, f), True)
            else:
                mods[rel + "." + f[:-3]] = (os.path.join(dirpath, f), False)
    return mods


def _is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree):
    """(module, names or None, level, line) of every import, lazy ones included."""
    out = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for sub in child.orelse:
                    visit_stmt(sub)
                continue
            visit_stmt(child)

    def visit_stmt(node):
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.append((alias.name, None, 0, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module or "", [a.name for a in node.names], node.level, node.lineno))
        visit(node)

    visit(tree)
    return out


def _resolve(module, is_package, target, level):
    if level == 0:
        return target
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def build_graph():
    """{module: {imported module: first line}} restricted to modules of python/tvm."""
    mods = _modules()
    graph = {}
    for name, (path, is_package) in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        edges = {}
        for target, names, level, line in _imports(tree):
            full = _resolve(name, is_package, target, level)
            candidates = []
            if names is None:
                candidates.append(full)
            else:
                for n in names:
                    sub = full + "." + n if full else n
                    candidates.append(sub if sub in mods else full)
            for c in candidates:
                # the innermost module of python/tvm that the name is in
                while c and c not in mods:
                    c = c.rpartition(".")[0]
                if c and c != name:
                    edges.setdefault(c, line)
        graph[name] = edges
    return graph, mods


def strongly_connected(graph):
    """Tarjan's algorithm (iterative): the components with more than one module."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return comps


def a_cycle(graph, comp):
    """One cycle through the component's first module (a shortest path back to it)."""
    members = set(comp)
    start = comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt_frontier = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    path = [node]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if nxt in members and nxt not in prev:
                    prev[nxt] = node
                    nxt_frontier.append(nxt)
        frontier = nxt_frontier
    return [start]


def describe(graph, mods, cycle):
    lines = []
    for a, b in zip(cycle, cycle[1:]):
        path = os.path.relpath(mods[a][0], ROOT)
        lines.append("  %s -> %s   (python/%s:%d)" % (a, b, path, graph[a][b]))
    return "\n".join(lines)


GRAPH, MODS = build_graph()


def test_the_graph_is_not_vacuous():
    assert len(MODS) > 100
    assert "tvm.tir.build" in GRAPH["tvm.driver.build_module"] or \
        "tvm.tir" in GRAPH["tvm.driver.build_module"]
    # lazy (function-level) imports are seen
    assert "tvm.relax" in GRAPH["tvm.driver.build_module"]
    assert "tvm.target.cuda_backend" in GRAPH["tvm.tir.build"]


def test_the_cycle_finder_finds_cycles():
    g = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    comps = strongly_connected(g)
    assert comps == [["a", "b", "c"]]
    assert a_cycle(g, comps[0]) == ["a", "b", "c", "a"]


def test_relative_imports_resolve():
    assert _resolve("tvm.tir.build", False, "ir", 2) == "tvm.ir"
    assert _resolve("tvm.tir", True, "expr", 1) == "tvm.tir.expr"
    assert _resolve("tvm.relax.frontend.torch.aten_ops", False, "", 3) == "tvm.relax"


def test_no_import_cycles():
    comps = strongly_connected(GRAPH)
    report = ["%d modules: %s\n%s" % (len(c), ", ".join(c), describe(GRAPH, MODS, a_cycle(GRAPH, c)))
              for c in comps]
    assert not comps, "import cycles in python/tvm:\n" + "\n".join(report)


def _in(name, package):
    return name == package or name.startswith(package + ".")


def _edges_into(layer, forbidden):
    """"a imports b (file:line)" for every module a of `layer` importing a module of one of
    the packages `forbidden`."""
    bad = []
    for name, edges in sorted(GRAPH.items()):
        if _in(name, layer):
            for dep, line in sorted(edges.items()):
                if any(_in(dep, f) for f in forbidden):
                    bad.append("%s imports %s (python/%s:%d)"
                               % (name, dep, os.path.relpath(MODS[name][0], ROOT), line))
    return bad


@pytest.mark.parametrize("layer", BELOW_DRIVER)
def test_nothing_below_the_driver_imports_it(layer):
    bad = _edges_into(layer, ["tvm.driver"])
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_frontend_imports_no_other_frontend(frontend):
    """What two frontends share lives in tvm.relax.frontend.kernels, below both."""
    assert frontend in MODS
    bad = _edges_into(frontend, [f for f in FRONTENDS if f != frontend])
    assert not bad, "\n".join(bad)


def test_the_shared_kernels_import_no_frontend():
    assert any(_in(m, SHARED_KERNELS) for m in MODS)
    bad = _edges_into(SHARED_KERNELS, FRONTENDS)
    assert not bad, "\n".join(bad)
