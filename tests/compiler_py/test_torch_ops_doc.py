"""docs/torch_ops.md is what tools/torch_ops_report.py generates from the converter registry
(a converter added without regenerating the table, or a table edited by hand, fails), and
every aten overload the registry names exists in this interpreter's torch (a misspelt
registration key would never be used)."""

import importlib.util
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.environ.get("TORCH_OPS_DOC") or os.path.join(HERE, "..", "..", "docs", "torch_ops.md")
TOOL = os.environ.get("TORCH_OPS_REPORT") or os.path.join(HERE, "..", "..", "tools", "torch_ops_report.py")


def _tool():
    spec = importlib.util.spec_from_file_location("torch_ops_report", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_doc_matches_the_registry():
    with open(DOC) as f:
        doc = f.read()
    want = _tool().render()
    assert doc == want, ("docs/torch_ops.md differs from the registry: run "
                         "`PYTHONPATH=python python3 tools/torch_ops_report.py`")


def test_every_aten_key_is_a_torch_overload():
    from tvm.relax.frontend.torch import aten_registry
    import tvm.relax.frontend.torch.aten_ops  # noqa: F401  (registers every converter module)

    missing = []
    for key in aten_registry.CONVERTERS:
        parts = key.split(".")
        if parts[0] != "aten":
            continue
        packet = getattr(torch.ops.aten, parts[1], None)
        if len(parts) != 3 or packet is None or parts[2] not in packet.overloads():
            missing.append(key)
    assert not missing, "registered names that are no aten overload: %s" % missing
