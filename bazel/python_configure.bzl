"""Repository rule `local_python`: pins the Python interpreter used by py_binary/py_test.

Bazel 4's autodetecting toolchain runs `#!/usr/bin/env python` on the test PATH, which
under --incompatible_strict_action_env is /bin:/usr/bin:/usr/local/bin (no pyenv, no
pytest). This rule resolves the interpreter on the *client* side instead:

  1. $PYTHON_BIN_PATH if set, else
  2. `python3` on the client PATH,

and then asks that interpreter for `sys.executable`, which gets past pyenv shims. It
generates:

  @local_python//:py3_runtime   py_runtime(interpreter_path=<abs>, stub_shebang="#!<abs>")
  @local_python//:runtime_pair  py_runtime_pair
  @local_python//:toolchain     toolchain for @bazel_tools//tools/python:toolchain_type
  @local_python//:defs.bzl      PYTHON_BIN, PYTHON_VERSION

Register it with `register_toolchains("@local_python//:toolchain")`. Re-run with
`bazel sync --configure` (or change PYTHON_BIN_PATH) after switching interpreters.
"""

_BUILD = """\
load("@rules_python//python:py_runtime.bzl", "py_runtime")
load("@rules_python//python:py_runtime_pair.bzl", "py_runtime_pair")

package(default_visibility = ["//visibility:public"])

py_runtime(
    name = "py3_runtime",
    interpreter_path = "{python}",
    python_version = "PY3",
    stub_shebang = "#!{python}",
)

py_runtime_pair(
    name = "runtime_pair",
    py3_runtime = ":py3_runtime",
)

toolchain(
    name = "toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
"""

_PROBE = "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3])"

def _local_python_impl(rctx):
    python = rctx.os.environ.get("PYTHON_BIN_PATH", "").strip()
    if not python:
        found = rctx.which("python3")
        if not found:
            fail("local_python: no python3 on PATH; set PYTHON_BIN_PATH to a Python 3 interpreter.")
        python = str(found)
    res = rctx.execute([python, "-c", _PROBE])
    if res.return_code != 0:
        fail("local_python: cannot run '%s': %s" % (python, res.stderr))
    lines = res.stdout.strip().splitlines()
    exe, version = lines[0].strip(), lines[1].strip()
    if not exe.startswith("/"):
        fail("local_python: sys.executable of '%s' is not absolute: '%s'" % (python, exe))

    check = rctx.execute([exe, "-c", "import pytest, hypothesis"])
    if check.return_code != 0:
        print("WARNING: local_python: %s cannot import pytest/hypothesis; " % exe +
              "run `python3 -m pip install -r requirements-test.txt` (tools/install_deps.sh).")

    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.file("BUILD.bazel", _BUILD.format(python = exe))
    rctx.file("defs.bzl", 'PYTHON_BIN = "%s"\nPYTHON_VERSION = "%s"\n' % (exe, version))

local_python = repository_rule(
    implementation = _local_python_impl,
    environ = ["PYTHON_BIN_PATH", "PATH"],
    local = True,
    configure = True,
    doc = "Pins the client's Python 3 (PYTHON_BIN_PATH or python3 on PATH) as the py toolchain.",
)
