"""Entry point of every pytest_test (see bazel/pytest.bzl). Standard library + pytest only."""

import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True


def _drop_source_dirs() -> None:
    """Python puts the real (symlink-resolved) directory of this script on sys.path[0],
    which is the source tree: undeclared files there would become importable. Keep only
    runfiles entries."""
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.getcwd()) != here]


def _find_libasan() -> str:
    """Path of the libasan the compiler links, so the preload matches the instrumented .so."""
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if cc:
        try:
            out = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True,
                                 text=True, check=False).stdout.strip()
        except OSError:
            out = ""
        if out and os.path.isabs(out) and os.path.exists(out):
            return os.path.realpath(out)
    import ctypes.util
    return ctypes.util.find_library("asan") or ""


def _maybe_reexec_with_asan() -> None:
    """Under --config=asan the tested .so files need the ASan runtime loaded first
    ("ASan runtime does not come first in initial library list"), but the interpreter is
    not instrumented: preload libasan (and libstdc++) and re-exec. LeakSanitizer is turned off because
    CPython itself does not free everything at exit; C++ leak checks live in cc_tests."""
    if os.environ.get("TVM_STACK_SANITIZE") != "1" or os.environ.get("_TVM_STACK_ASAN_REEXEC"):
        return
    lib = _find_libasan()
    if not lib:
        sys.stderr.write("pytest_runner: TVM_STACK_SANITIZE=1 but libasan not found\n")
        sys.exit(1)
    env = dict(os.environ)
    env["_TVM_STACK_ASAN_REEXEC"] = "1"
    # libstdc++ right after libasan: the interpreter does not link it, and without it loaded
    # up front ASan cannot intercept __cxa_throw and aborts on the first C++ exception.
    env["LD_PRELOAD"] = " ".join(x for x in [lib, "libstdc++.so.6", env.get("LD_PRELOAD", "")] if x)
    opts = [o for o in env.get("ASAN_OPTIONS", "").split(":") if o and not o.startswith("detect_leaks=")]
    env["ASAN_OPTIONS"] = ":".join(opts + ["detect_leaks=0"])
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env)


def main() -> int:
    _maybe_reexec_with_asan()
    _drop_source_dirs()

    tmp = os.environ.get("TEST_TMPDIR") or os.path.join(os.getcwd(), ".tmp")
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tmp, "hypothesis"))
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"

    import pytest  # after the environment is set up

    args = ["-q", "-p", "_hypothesis_pytestplugin", "-p", "no:cacheprovider"]
    if os.environ.get("TVM_STACK_SANITIZE") == "1":
        # A sanitizer report is written to fd 2 and then the process dies: with pytest's
        # default fd capture the report would be lost in a temp file.
        args.append("--capture=sys")
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        args.append("--junitxml=" + xml)
    args += sys.argv[1:]
    # Exit code 5 (no tests collected) is non-zero too, so it fails the target.
    return int(pytest.main(args))


if __name__ == "__main__":
    sys.exit(main())
