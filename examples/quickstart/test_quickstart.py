"""The quick start runs, and the README's snippet of it runs as written."""

import os
import re

import numpy as np

from examples.quickstart import quickstart

MODULE = os.path.abspath(os.environ["QUICKSTART_MODULE"])


def test_example_runs(capsys):
    quickstart.main(MODULE)
    out = capsys.readouterr().out
    assert "saxpy (numpy, zero copy)" in out
    assert "quickstart.square(12) = 144" in out


def test_readme_snippet_runs():
    readme = open(os.environ["README"], encoding="utf-8").read()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    python = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(python) == 1, "the README quick start has one Python block"
    code = python[0].replace('"quickstart_module.so"', repr(MODULE))
    assert repr(MODULE) in code, "the README snippet loads quickstart_module.so"
    import tvm_ffi

    tvm_ffi.remove_global_func("quickstart.square")  # the other test may have registered it
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)
    np.testing.assert_allclose(scope["y"], 2 * np.arange(8) + 1)
    assert scope["ty"].tolist() == list(range(8))  # written in place through DLPack


def test_module_rejects_bad_input():
    import pytest
    import tvm_ffi

    mod = tvm_ffi.load_module(MODULE)
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="same length"):
        mod.saxpy(1.0, tvm_ffi.from_dlpack(x), tvm_ffi.from_dlpack(np.ones(4, np.float32)))
    with pytest.raises(TypeError, match="float32"):
        mod.saxpy(1.0, tvm_ffi.from_dlpack(x), tvm_ffi.from_dlpack(np.ones(3, np.float64)))
