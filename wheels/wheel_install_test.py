"""Each wheel installed into a fresh virtual environment, offline, and used from outside the
source tree, the way a user would:

  full wheel:     the FFI quick start (a C++ module compiled against the installed headers,
                  called with numpy arrays, calling back into Python), then compile + export
                  of a scheduled dense + relu kernel;
  runtime wheel:  load + run of that export, in runtime-only mode by itself; compiler imports
                  fail with the clear error; the C++ deployment app built against its headers
                  and libraries runs kernels compiled with the full wheel.

pip runs with --no-index: the wheels' dependencies (numpy, llvmlite) come from the local
wheelhouse that tools/install_deps.sh fills ($TVM_STACK_WHEELHOUSE).
"""

import os
import shutil
import subprocess
import sys
import venv

import pytest


def _runfile(rel):
    return os.path.join(os.environ["TEST_SRCDIR"], os.environ.get("TEST_WORKSPACE", "tvm_stack"), rel)


def _the_wheel(env):
    folder = _runfile(os.environ[env])
    (name,) = os.listdir(folder)
    return os.path.join(folder, name)


WHEELHOUSE = os.environ.get("TVM_STACK_WHEELHOUSE", "")
# Backend libraries the wheels carry (built where their headers exist), loaded by `import tvm`.
# Optional libraries this configuration built (libtvm_runtime_extra) load the same way.
BACKENDS = sorted(filter(None, os.environ.get("EXPECTED_BACKENDS", "").split(",") + [
    os.path.basename(p)[3:-3] for p in os.environ.get("EXPECTED_OPTIONAL_LIBS", "").split()
    if p.endswith(".so")]))


def _clean_env(**extra):
    """The environment of a user's shell: nothing of this test run's Python setup."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "TVM_", "RUNFILES", "PIP_"))}
    env.update(PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    env.update(extra)
    return env


def _run(cmd, cwd, **extra):
    proc = subprocess.run(cmd, cwd=cwd, env=_clean_env(**extra), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, "%s failed (%d):\n%s\n%s" % (cmd, proc.returncode, proc.stdout,
                                                              proc.stderr)
    return proc.stdout


def _make_venv(where, wheel):
    if not os.path.isdir(WHEELHOUSE):
        pytest.fail("no wheelhouse at %r: run tools/install_deps.sh (it downloads numpy and "
                    "llvmlite wheels there)" % WHEELHOUSE)
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    python = os.path.join(where, "bin", "python")
    _run([python, "-m", "pip", "install", "--no-index", "--find-links", WHEELHOUSE, wheel],
         cwd=where)
    return python


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    # A folder outside the source tree and runfiles: nothing importable lies next to it.
    root = tmp_path_factory.mktemp("user")
    for rel in ["examples/quickstart/quickstart.py", "examples/quickstart/quickstart_module.cc",
                "examples/compile_deploy/compile_and_export.py",
                "examples/compile_deploy/run_exported.py",
                "examples/compile_deploy/compile_deploy_kernels.py",
                "examples/cpp_deploy/deploy_app.cc"]:
        shutil.copy(_runfile(rel), root)
    return root


@pytest.fixture(scope="module")
def full_python(tmp_path_factory):
    return _make_venv(str(tmp_path_factory.mktemp("venv_full")), _the_wheel("FULL_WHEEL_DIR"))


@pytest.fixture(scope="module")
def runtime_python(tmp_path_factory):
    return _make_venv(str(tmp_path_factory.mktemp("venv_runtime")),
                      _the_wheel("RUNTIME_WHEEL_DIR"))


def test_full_wheel_ffi_quick_start(full_python, work):
    # Compile the quick start module against the installed headers and library, as a user of
    # the wheel would, with the paths libinfo gives.
    q = ("import tvm_ffi.libinfo as l; print(l.find_include_path()); print(l.find_lib_dir()); "
         "import tvm_ffi; print(tvm_ffi.__file__)")
    include, libdir, pkg = _run([full_python, "-c", q], cwd=work).split()
    assert pkg.startswith(os.path.dirname(os.path.dirname(full_python))), pkg  # the venv's
    module = os.path.join(work, "quickstart_module.so")
    _run(["c++", "-std=c++17", "-O1", "-shared", "-fPIC", "-I" + include,
          os.path.join(work, "quickstart_module.cc"), "-L" + libdir, "-ltvm_ffi",
          "-Wl,-rpath," + libdir, "-o", module], cwd=work)
    out = _run([full_python, "quickstart.py", module], cwd=work)
    assert "saxpy (numpy, zero copy)" in out and "quickstart.square(12) = 144" in out, out


@pytest.fixture(scope="module")
def exported(full_python, work):
    """compile + export with the full wheel: the .so the runtime wheel then runs."""
    path = os.path.join(work, "dense_relu.so")
    out = _run([full_python, "compile_and_export.py", path, "64", "48", "80"], cwd=work)
    return path, out


def test_full_wheel_compiles_and_exports(full_python, work, exported):
    out = _run([full_python, "-c", "import tvm; print(tvm.__version__, tvm.base.RUNTIME_ONLY, "
                "sorted(tvm.base._LOADED_LIBS))"], cwd=work)
    libs = sorted(["tvm_compiler", "tvm_runtime"] + BACKENDS)
    assert out.split(None, 1)[1].strip() == "False %s" % libs, out
    path, _ = exported
    with open(path, "rb") as f:
        assert f.read(4) == b"\x7fELF"


def test_runtime_wheel_loads_and_runs_the_export(runtime_python, work, exported):
    # No TVM_USE_RUNTIME_LIB: the runtime wheel is runtime-only by itself.
    out = _run([runtime_python, "run_exported.py", exported[0], "64", "48", "80"], cwd=work)
    assert "result check: " in out and " OK" in out, out
    assert "with %s\n" % ", ".join(["tvm_runtime"] + BACKENDS) in out, out


def test_runtime_wheel_imports_compiler_packages_and_fails_at_first_use(runtime_python, work):
    code = """
import tvm
from tvm import te, relax
import tvm.tir
assert tvm.base.RUNTIME_ONLY
for stmt in ("te.placeholder((4,), 'float32')", "tvm.tir.build(None)", "tvm.compile(None)"):
    try:
        eval(stmt)
    except ImportError as err:
        assert type(err).__name__ == "CompilerNotAvailableError", (stmt, err)
        assert "runtime only" in str(err) and "tvm-stack" in str(err), (stmt, err)
    else:
        raise AssertionError(stmt + " did not fail")
import tvm.runtime, tvm.rpc, tvm.contrib.utils  # the runtime parts are all there
print("ok", tvm.__version__)
"""
    assert _run([runtime_python, "-c", code], cwd=work).startswith("ok ")
    names = _run([runtime_python, "-m", "pip", "list", "--format=freeze"], cwd=work)
    assert "llvmlite" not in names and "tvm-stack-runtime==" in names, names


def test_runtime_wheel_builds_and_runs_a_cpp_app(full_python, runtime_python, work):
    kernels = os.path.join(work, "compiled_kernels.so")
    _run([full_python, "compile_deploy_kernels.py", kernels], cwd=work)
    flags = _run([runtime_python, "-m", "tvm.config", "--cxxflags", "--ldflags", "--libs"],
                 cwd=work).split()
    venv_root = os.path.dirname(os.path.dirname(runtime_python))
    paths = [f[2:] for f in flags if f.startswith(("-I", "-L"))]
    paths += [f[len("-Wl,-rpath,"):] for f in flags if f.startswith("-Wl,-rpath,")]
    assert paths and all(p.startswith(venv_root) for p in paths), flags
    app = os.path.join(work, "deploy_app")
    _run(["c++", os.path.join(work, "deploy_app.cc")] + flags + ["-O1", "-o", app], cwd=work)
    out = _run([app, kernels], cwd=work)
    assert "deploy_app: OK" in out, out


def _other_pythons():
    """CPython 3 interpreters of other minor versions on this machine: installed next to this
    one (pyenv-style versions/ folders) or as /usr/bin/python3.X."""
    import glob
    import re

    here = os.path.realpath(sys.executable)
    found = {}
    candidates = glob.glob(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(here))),
                                        "*", "bin", "python3"))
    candidates += glob.glob("/usr/bin/python3.[0-9]*")
    for exe in sorted(candidates):
        proc = subprocess.run([exe, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True)
        version = proc.stdout.strip()
        if proc.returncode == 0 and re.fullmatch(r"3\.\d+", version) and \
                version != "%d.%d" % sys.version_info[:2] and int(version.split(".")[1]) >= 9:
            found.setdefault(version, exe)
    return sorted(found.items())


_OTHERS = _other_pythons()


@pytest.mark.parametrize("version,exe", _OTHERS or [("none", None)], ids=[v for v, _ in _OTHERS] or ["none"])
def test_py3_tag_holds_on_other_pythons(version, exe, tmp_path):
    # The wheels claim py3 (ctypes only, no extension module). Without the other versions'
    # numpy wheels offline, install the runtime wheel with --no-deps and use what needs no
    # numpy: tvm_ffi values and calls, and tvm in runtime-only mode.
    if exe is None:
        pytest.skip("no other CPython 3.9+ on this machine")
    where = str(tmp_path / "venv")
    _run([exe, "-m", "venv", where], cwd=str(tmp_path))
    python = os.path.join(where, "bin", "python")
    _run([python, "-m", "pip", "install", "--no-index", "--no-deps",
          _the_wheel("RUNTIME_WHEEL_DIR")], cwd=str(tmp_path))
    code = ("import sys, tvm_ffi, tvm\n"
            "assert tvm_ffi.convert([1, 'a', 2.5])[1] == 'a'\n"
            "f = tvm_ffi.convert(lambda x, y: x * y)\n"
            "assert f(6, 7) == 42\n"
            "assert tvm.base.RUNTIME_ONLY and tvm.__version__\n"
            "print('%d.%d' % sys.version_info[:2])\n")
    assert _run([python, "-c", code], cwd=str(tmp_path)).strip() == version


def test_both_wheels_in_one_environment_warn(tmp_path):
    where = str(tmp_path / "venv")
    python = _make_venv(where, _the_wheel("FULL_WHEEL_DIR"))
    code = "import warnings; warnings.simplefilter('error'); import tvm; print('quiet')"
    assert _run([python, "-c", code], cwd=str(tmp_path)).strip() == "quiet"
    _run([python, "-m", "pip", "install", "--no-index", "--no-deps",
          _the_wheel("RUNTIME_WHEEL_DIR")], cwd=str(tmp_path))
    proc = subprocess.run([python, "-c", "import tvm"], cwd=str(tmp_path), env=_clean_env(),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "both tvm_stack and tvm_stack_runtime are installed" in proc.stderr, proc.stderr
