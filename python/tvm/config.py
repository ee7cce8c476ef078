"""`python -m tvm.config`: compiler and linker flags for C++ code built against the runtime
(tvm/runtime/*.h over tvm/ffi/*.h) and linking libtvm_runtime + libtvm_ffi.

    c++ -std=c++17 app.cc $(python -m tvm.config --cxxflags --ldflags --libs) -o app

Prints the requested items on one line, in order. Works from an installed wheel (either) and
from a source checkout with the libraries built.
"""

import argparse
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
    parser = argparse.ArgumentParser(prog="tvm-config", description=__doc__.split("\n")[0])
    for item in _ITEMS:
        parser.add_argument("--" + item, action="append_const", const=item, dest="items")
    args = parser.parse_args(argv)
    if not args.items:
        parser.print_help()
        return 1
    print(" ".join(_value(item) for item in args.items))
    return 0


if __name__ == "__main__":
    sys.exit(main())
