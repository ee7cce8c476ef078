"""Library discovery, version, build info, the config CLI, import cost."""

import json
import os
import subprocess
import sys

import pytest

import tvm_ffi
from tvm_ffi import libinfo


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def test_paths_exist():
    assert os.path.isfile(libinfo.find_libtvm_ffi())
    inc = libinfo.find_include_path()
    assert os.path.isfile(os.path.join(inc, "tvm", "ffi", "c_api.h"))
    assert os.path.isfile(os.path.join(libinfo.find_dlpack_include_path(), "dlpack", "dlpack.h"))


def test_version_and_build_info():
    assert tvm_ffi.__version__ == libinfo.version()
    major, minor, patch = (int(x) for x in libinfo.version().split("."))
    assert (major, minor) == (0, 1)
    info = libinfo.build_info()
    assert info["version"] == libinfo.version()


def test_config_cli():
    out = subprocess.run([sys.executable, "-m", "tvm_ffi.config", "--includedir", "--libdir",
                          "--libs", "--cxxflags", "--ldflags"], env=_env(), check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[0] == libinfo.find_include_path()
    assert out[1] == os.path.dirname(libinfo.find_libtvm_ffi())
    assert "-ltvm_ffi" in out and "-std=c++17" in out
    assert "-I" + libinfo.find_include_path() in out


def test_import_is_light(tmp_path):
    """`import tvm_ffi` in a fresh process pulls in no numpy (and its time is printed).

    Measured on a copy of the package with compiled bytecode, as an installed package has
    (runfiles are read-only, so an import from them would compile every file each time).
    """
    import shutil

    pkg = os.path.dirname(tvm_ffi.__file__)
    dest = tmp_path / "tvm_ffi"
    shutil.copytree(pkg, dest, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(dest)], check=True)
    env = _env()
    env["PYTHONPATH"] = str(tmp_path)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["TVM_FFI_LIBRARY_PATH"] = libinfo.find_libtvm_ffi()
    code = (
        "import sys, time\n"
        "t = time.perf_counter()\n"
        "import tvm_ffi\n"
        "dt = time.perf_counter() - t\n"
        "assert tvm_ffi.__file__.startswith(%r)\n"
        "import json\n"
        "print(json.dumps({'numpy': 'numpy' in sys.modules, 'ms': dt * 1000}))\n" % str(tmp_path)
    )
    best = None
    for _ in range(5):  # shared machines are noisy: take the best run
        res = json.loads(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                        capture_output=True, text=True).stdout)
        assert res["numpy"] is False
        best = res["ms"] if best is None else min(best, res["ms"])
    # The time is reported, not asserted: a wall-clock bound fails on a loaded machine
    # (34 ms once under a parallel build); speed is the benchmarks' job.
    print("import tvm_ffi: best of 5 %.1f ms" % best)


def test_missing_library_message(monkeypatch):
    from tvm_ffi import _lib

    monkeypatch.setenv("TVM_FFI_LIBRARY_PATH", "/nonexistent/dir/libtvm_ffi.so")
    assert _lib.candidates()[0] == "/nonexistent/dir/libtvm_ffi.so"
    monkeypatch.setattr(_lib, "candidates", lambda: ["/nonexistent/a.so", "/nonexistent/b.so"])
    with pytest.raises(OSError) as info:
        _lib.find_library()
    assert "/nonexistent/a.so" in str(info.value) and "/nonexistent/b.so" in str(info.value)
    assert "TVM_FFI_LIBRARY_PATH" in str(info.value)


def test_compile_against_config_flags(tmp_path):
    """The flags of `python -m tvm_ffi.config` build a C program that links our library."""
    import shutil

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    src = tmp_path / "probe.c"
    src.write_text(
        "#include <tvm/ffi/c_api.h>\n"
        "#include <stdio.h>\n"
        "int main(void) { TVMFFIVersion v; TVMFFIGetVersion(&v);\n"
        "  printf(\"%u.%u.%u\\n\", v.major, v.minor, v.patch); return 0; }\n")
    flags = subprocess.run([sys.executable, "-m", "tvm_ffi.config", "--cflags", "--ldflags",
                            "--libs"], env=_env(), check=True, capture_output=True,
                           text=True).stdout.split()
    exe = tmp_path / "probe"
    subprocess.run([cc, str(src), "-o", str(exe)] + flags, check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.strip()
    assert out == libinfo.version()
