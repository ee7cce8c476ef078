"""The include layering inside libtvm_compiler, checked on its sources.

Layers, bottom up: ir (IRModule, PrimExpr, reflection, printer dispatch) < tir nodes < arith
< tir analysis, schedules and passes < te < relax; codegen sits on top and nothing below
includes it. Each rule below names a layer (a folder, or a folder's prefix) and what it must
not include. Run as a Bazel test, or from the repository root:
`python3 tests/layering/test_compiler_includes.py` lists every violation.
"""

import os
import re
import sys

# Where a file sits decides its layer. First match wins, so sub-layers come first;
# "compiler/src/tir/transforms" also covers compiler/src/tir/transforms.cc.
LAYER_OF_PATH = [
    ("compiler/src/tir/transforms", "tir.transforms"),
    ("compiler/src/tir/schedule/", "tir.schedule"),
    ("compiler/src/tir/analysis/", "tir.analysis"),
    ("compiler/src/tir/", "tir"),
    ("compiler/include/tvm/tir/", "tir"),
    ("compiler/src/ir/", "ir"),
    ("compiler/include/tvm/ir/", "ir"),
    ("compiler/src/arith/", "arith"),
    ("compiler/include/tvm/arith/", "arith"),
    ("compiler/src/te/", "te"),
    ("compiler/include/tvm/te/", "te"),
    ("compiler/src/relax/", "relax"),
    ("compiler/include/tvm/relax/", "relax"),
    ("compiler/src/codegen/", "codegen"),
    ("compiler/include/tvm/codegen/", "codegen"),
    ("compiler/src/target/", "target"),
    ("compiler/include/tvm/target/", "target"),
    ("compiler/src/support/", "support"),
]

# (layer prefix of the including file, layer prefix it must not include, why).
RULES = [
    ("ir", "tir", "ir is below every dialect: dispatch through tables the dialects fill"),
    ("ir", "relax", "ir is below every dialect"),
    ("ir", "te", "ir is below every dialect"),
    ("ir", "arith", "arith is built on ir, not the other way"),
    ("ir", "codegen", "codegen is the top layer"),
    ("arith", "tir.transforms", "passes use arith, arith uses no pass"),
    ("arith", "tir.schedule", "schedules use arith, arith uses no schedule"),
    ("arith", "te", "te is above arith"),
    ("arith", "relax", "relax is above arith"),
    ("arith", "codegen", "codegen is the top layer"),
    ("tir", "relax", "relax is built on tir, not the other way"),
    ("tir", "te", "te builds tir; tir does not know te's sources"),
    ("tir", "codegen", "codegen is the top layer"),
    ("tir.transforms", "tir.schedule", "shared helpers live in tir/analysis"),
    ("tir.analysis", "tir.transforms", "analyses are below passes"),
    ("tir.analysis", "tir.schedule", "analyses are below schedules"),
    ("te", "relax", "relax is above te"),
    ("te", "codegen", "codegen is the top layer"),
    ("te", "tir.schedule", "shared helpers live in tir/analysis"),
    ("relax", "tir.schedule", "shared helpers live in tir/analysis"),
    ("relax", "codegen", "codegen is the top layer"),
    ("target", "codegen", "codegen is the top layer"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of(path):
    for prefix, layer in LAYER_OF_PATH:
        if path.startswith(prefix):
            return layer
    return None


def _under(layer, prefix):
    return layer == prefix or layer.startswith(prefix + ".")


def resolve(path, kind, name):
    """The repository path an include names, or None when it is outside libtvm_compiler."""
    if kind == "<":
        return "compiler/include/" + name if name.startswith("tvm/") else None
    local = os.path.normpath(os.path.join(os.path.dirname(path), name))
    return local if local.startswith("compiler/") else None


def violations(files):
    """files: {repository path: text}. Returns 'path: includes X (rule)' lines."""
    out = []
    for path, text in sorted(files.items()):
        src = layer_of(path)
        if src is None:
            continue
        for kind, name in INCLUDE.findall(text):
            target = resolve(path, kind, name)
            dst = layer_of(target) if target else None
            if dst is None or dst == src:
                continue
            for frm, to, why in RULES:
                if _under(src, frm) and _under(dst, to) and not _under(src, to):
                    out.append("%s (%s) includes %s (%s): %s" % (path, src, name, dst, why))
    return out


def compiler_sources(root="."):
    files = {}
    for top in ("compiler/src", "compiler/include"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".h", ".cc")):
                    full = os.path.join(d, n)
                    rel = os.path.relpath(full, root).replace(os.sep, "/")
                    with open(full, encoding="utf-8") as fh:
                        files[rel] = fh.read()
    return files


def test_sources_are_found():
    files = compiler_sources()
    assert any(p.startswith("compiler/src/ir/") for p in files), sorted(files)[:5]
    assert any(p.startswith("compiler/src/codegen/") for p in files)
    assert all(layer_of(p) for p in files if p.startswith("compiler/src/") and "/build_info/" not in p), \
        [p for p in files if layer_of(p) is None]


def test_compiler_includes_follow_the_layers():
    bad = violations(compiler_sources())
    assert not bad, "include layering violated:\n  " + "\n  ".join(bad)


def test_a_violation_is_reported():
    # The checker itself: each kind of include that breaks a rule is caught.
    fake = {
        "compiler/src/ir/printer.cc": '#include <tvm/tir/ir.h>\n#include "../relax/x.h"\n',
        "compiler/include/tvm/ir/expr.h": "#include <tvm/relax/expr.h>\n",
        "compiler/src/tir/transforms/x.cc": '#include "../schedule/utils.h"\n#include "../../codegen/codegen_llvm.h"\n',
        "compiler/src/arith/a.cc": "#include <tvm/ir/expr.h>\n#include <tvm/tir/ir.h>\n",
        "compiler/src/relax/ir/p.cc": "  #  include <tvm/tir/ir.h>\n",
    }
    bad = violations(fake)
    assert len(bad) == 5, bad
    assert any("printer.cc" in b and "tvm/tir/ir.h" in b for b in bad)
    assert any("printer.cc" in b and "../relax/x.h" in b for b in bad)
    assert any("expr.h" in b for b in bad)
    assert sum("transforms/x.cc" in b for b in bad) == 2


if __name__ == "__main__":
    found = violations(compiler_sources(sys.argv[1] if len(sys.argv) > 1 else "."))
    print("\n".join(found) or "no violations")
    sys.exit(1 if found else 0)
