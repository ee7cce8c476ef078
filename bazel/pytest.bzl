"""pytest_test: one py_test that runs pytest over the given files.

    load("//bazel:pytest.bzl", "pytest_test")

    pytest_test(
        name = "test_registry",
        srcs = ["test_registry.py"],
        deps = ["//python:tvm_ffi"],
        data = ["//ffi:libtvm_ffi.so"],
        env = {"TVM_FFI_LIBRARY": "$(rootpath //ffi:libtvm_ffi.so)"},
    )

The runner (//bazel:pytest_runner.py) runs `pytest -q` on the *test files only* (every
`.py` in srcs whose basename starts with `test_` or ends with `_test.py`; other srcs such
as conftest.py or helpers are importable but not collected), with:
  - the source directories dropped from sys.path: only declared srcs/deps are importable;
  - PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, then `-p _hypothesis_pytestplugin -p no:cacheprovider`
    (no site-packages plugins leak in, no .pytest_cache);
  - HYPOTHESIS_STORAGE_DIRECTORY under $TEST_TMPDIR (no .hypothesis/ in the tree);
  - --junitxml=$XML_OUTPUT_FILE, so Bazel shows per-test results;
  - exit code 5 (no tests collected) failing the target.
Under --config=asan it re-executes itself with LD_PRELOAD=libasan (see the runner).
`env` values may use $(rootpath ...) of labels in `data`. Keep one file per target when
you can: Bazel caches and reruns per target.
"""

load("@rules_python//python:defs.bzl", "py_test")

_RUNNER = "//bazel:pytest_runner.py"

def _is_test_file(src):
    base = src.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py"))

def pytest_test(
        name,
        srcs,
        deps = [],
        data = [],
        env = {},
        size = "small",
        args = [],
        tags = [],
        **kwargs):
    """Runs pytest on srcs. Extra kwargs (timeout, flaky, shard_count, target_compatible_with...) go to py_test.

    Args:
      name: target name.
      srcs: test files (test_*.py / *_test.py are collected) and helpers/conftest.py.
      deps: py_library deps.
      data: runtime files (.so files, test data).
      env: extra environment; values may use $(rootpath <label in data>).
      size: Bazel test size (small = 60 s timeout).
      args: extra pytest arguments, appended after the test files.
      tags: test tags.
      **kwargs: forwarded to py_test.
    """
    tests = [s for s in srcs if _is_test_file(s)]
    if not tests:
        fail("pytest_test(%s): no test_*.py or *_test.py in srcs" % name)
    py_test(
        name = name,
        main = _RUNNER,
        srcs = [_RUNNER] + srcs,
        args = ["$(rootpath %s)" % t for t in tests] + args,
        deps = deps,
        data = data,
        env = env,
        size = size,
        tags = tags,
        **kwargs
    )
