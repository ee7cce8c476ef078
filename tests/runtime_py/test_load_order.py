"""`import tvm` loads the libraries in the seed's order and reports real build facts."""

import os
import subprocess
import sys

import tvm
import tvm_ffi


def test_runtime_is_loaded_first_and_globally():
    assert list(tvm.base._LOADED_LIBS)[0] == "tvm_runtime"
    # The runtime's globals are registered in the single libtvm_ffi registry.
    assert tvm_ffi.get_global_func("runtime.TensorEmpty") is not None


def test_libinfo_reports_facts_of_loaded_libraries():
    info = tvm.support.libinfo()
    assert info["tvm_ffi.version"] == "0.1.16"
    assert info["tvm_runtime.compiler"].startswith("gcc")
    assert info["USE_RPC"] == "ON"
    assert info["LOADED_LIBS"].split(", ")[:2] == ["tvm_ffi", "tvm_runtime"]
    assert info["RUNTIME_ONLY"] in ("ON", "OFF")


def test_absent_backend_is_simply_absent():
    assert "tvm_runtime_cuda" not in tvm.base._LOADED_LIBS or tvm.cuda().exist in (True, False)
    # No CUDA backend or driver here: exist is False without an error.
    assert tvm.cuda().exist is False
    assert tvm.cuda(3).exist is False
    assert tvm.cpu().exist is True
    assert tvm.cpu().total_global_memory > 0


def test_runtime_only_mode_does_not_load_the_compiler():
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1")
    code = ("import tvm; print(sorted(tvm.base._LOADED_LIBS)); "
            "print(tvm.support.libinfo()['RUNTIME_ONLY'])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert "tvm_compiler" not in out[0]
    assert out[1] == "ON"


def test_missing_runtime_is_a_clear_error(tmp_path):
    env = dict(os.environ, TVM_LIBRARY_PATH=str(tmp_path))
    code = ("import tvm.base as b, os; b.find_library = lambda n: None; "
            "b._load_libraries()")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "cannot find libtvm_runtime.so" in proc.stderr


def test_compiler_loads_by_default_when_shipped_and_not_in_runtime_only_mode():
    assert "tvm_compiler" in tvm.base._LOADED_LIBS
    assert tvm.support.libinfo()["RUNTIME_ONLY"] == "OFF"
    # Runtime-only (as in TVM): the compiler packages import, the first compiler call fails.
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1")
    code = ("import tvm\n"
            "import tvm.te\n"
            "try:\n    tvm.te.placeholder((4,), 'float32')\nexcept ImportError as e:\n"
            "    print('ImportError', e)\n"
            "try:\n    tvm.compile(None)\nexcept ImportError as e:\n    print('ImportError', e)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.count("ImportError") == 2 and "TVM_USE_RUNTIME_LIB" in out


def test_every_compiler_package_imports_and_fails_at_first_use():
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1")
    code = ("import tvm\n"
            "from tvm._compiler_guard import COMPILER_SUBPACKAGES, CompilerNotAvailableError\n"
            "for p in COMPILER_SUBPACKAGES:\n"
            "    exec('import tvm.%s' % p)\n"
            "    exec('from tvm import %s' % p)\n"
            "import tvm.tir.schedule, tvm.tir.transform\n"
            "assert 'tvm_compiler' not in tvm.base._LOADED_LIBS\n"
            "calls = ['tvm.te.placeholder((4,), \"float32\")', 'tvm.compile(None)',\n"
            "         'tvm.tir.build(None)', 'tvm.IRModule({})', 'tvm.build(None)']\n"
            "for c in calls:\n"
            "    try:\n        eval(c)\n"
            "    except CompilerNotAvailableError as e:\n"
            "        assert 'runtime only' in str(e) and 'runtime-only mode' in str(e), e\n"
            "    else:\n        raise SystemExit(c + ' did not raise')\n"
            "import tvm.runtime, tvm.rpc\n"
            "print(len(calls))\n")
    out = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", code],
                         env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == 5


def test_version_is_the_runtime_libraries():
    info = tvm.support.libinfo()
    assert tvm.__version__ == info["tvm_runtime.version"] == info["tvm_compiler.version"]
    assert all(p.isdigit() for p in tvm.__version__.split("."))


def test_config_prints_flags_for_cpp_apps(capsys):
    import tvm.config

    assert tvm.config.main(["--cxxflags", "--ldflags", "--libs"]) == 0
    flags = capsys.readouterr().out.split()
    includes = [f[2:] for f in flags if f.startswith("-I")]
    assert any(os.path.isfile(os.path.join(p, "tvm", "runtime", "tensor.h")) for p in includes)
    assert any(os.path.isfile(os.path.join(p, "tvm", "ffi", "c_api.h")) for p in includes)
    libdirs = [f[2:] for f in flags if f.startswith("-L")]
    assert any(os.path.isfile(os.path.join(d, "libtvm_runtime.so")) for d in libdirs)
    assert "-ltvm_runtime" in flags and "-ltvm_ffi" in flags
    assert tvm.config.main([]) == 1  # no item asked: the help, and a failure status
