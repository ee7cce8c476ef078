"""`python -m tvm.config`: compiler and linker flags for C++ code built against the runtime
(tvm/runtime/*.h over tvm/ffi/*.h) and linking libtvm_runtime + libtvm_ffi.

    c++ -std=c++17 app.cc $(python -m tvm.config --cxxflags --ldflags --libs) -o app

Prints the requested items on one line, in order. Works from an installed wheel (either) and
from a source checkout with the libraries built.
"""

import sys

_ITEMS = ("includedirs", "libdirs", "libs", "cxxflags", "ldflags")


def _value(item):
    from . import support

    if item == "includedirs":
        return " ".join(support.include_paths())
    if item == "libdirs":
        return " ".join(support.library_dirs())
    if item == "libs":
        # --no-as-needed: an app may reach the runtime only through the function registry,
        # and a linker that drops unreferenced libraries would leave it out.
        return "-Wl,--no-as-needed -ltvm_runtime -ltvm_ffi"
    if item == "cxxflags":
        return " ".join(["-std=c++17"] + ["-I" + p for p in support.include_paths()])
    if item == "ldflags":
        return " ".join("-L%s -Wl,-rpath,%s" % (d, d) for d in support.library_dirs())
    raise ValueError(item)


def main(argv=None):
    from tvm_ffi.config import run_cli

    return run_cli("tvm-config", __doc__.split("\n")[0], _ITEMS, _value, argv)


if __name__ == "__main__":
    sys.exit(main())
