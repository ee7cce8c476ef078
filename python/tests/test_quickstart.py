"""The README quick start (docs/python_ffi.md), run as written."""

import os
import re

import pytest

from conftest import module_path

HERE = os.path.dirname(os.path.abspath(__file__))


def _doc():
    for base in (os.environ.get("TEST_SRCDIR", ""), os.getcwd(), HERE):
        for rel in ("docs/python_ffi.md", "tvm_stack/docs/python_ffi.md", "_main/docs/python_ffi.md",
                    "../../docs/python_ffi.md"):
            path = os.path.join(base, rel)
            if os.path.isfile(path):
                return open(path, encoding="utf-8").read()
    # Outside runfiles: the source tree (this file's real location).
    path = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "docs",
                        "python_ffi.md")
    if os.path.isfile(path):
        return open(path, encoding="utf-8").read()
    pytest.skip("docs/python_ffi.md not found")


def _blocks(lang):
    quick = _doc().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```%s\n(.*?)```" % lang, quick, re.S)


def test_cpp_snippet_is_the_tested_source():
    src = open(os.path.join(os.path.dirname(os.path.realpath(__file__)), "quickstart.cc"),
               encoding="utf-8").read()
    assert _blocks("cpp")[0].strip() == src.strip()


def test_python_snippet_runs(tmp_path):
    code = _blocks("python")[0]
    so = module_path("QUICKSTART_MODULE")
    code = code.replace('tvm_ffi.load_module("quickstart.so")', "tvm_ffi.load_module(%r)" % so)
    assert so in code
    exec(compile(code, "docs/python_ffi.md", "exec"), {"__name__": "quickstart"})
