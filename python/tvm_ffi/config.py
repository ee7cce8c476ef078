"""`python -m tvm_ffi.config`: compiler and linker flags for code built against libtvm_ffi.

    python -m tvm_ffi.config --cxxflags --ldflags --libs

Prints the requested items on one line, in order. Does not load the library.
"""

import argparse
import sys

from . import libinfo

_ITEMS = ("includedir", "dlpack-includedir", "libdir", "libfiles", "libs", "cxxflags", "cflags",
          "ldflags")


def _value(item):
    if item == "includedir":
        return libinfo.find_include_path()
    if item == "dlpack-includedir":
        return libinfo.find_dlpack_include_path()
    if item == "libdir":
        return libinfo.find_lib_dir()
    if item == "libfiles":
        return libinfo.find_libtvm_ffi()
    if item == "libs":
        return "-ltvm_ffi"
    inc = " ".join("-I" + p for p in libinfo.include_paths())
    if item == "cxxflags":
        return inc + " -std=c++17"
    if item == "cflags":
        return inc
    if item == "ldflags":
        return "-L%s -Wl,-rpath,%s" % (libinfo.find_lib_dir(), libinfo.find_lib_dir())
    raise ValueError(item)


def run_cli(prog, description, items, value, argv=None):
    """A flags CLI: one `--item` switch per name in `items`; prints `value(item)` of those given,
    on one line, in order. Returns the exit status (1 with the help when none is given).
    Shared with `python -m tvm.config`."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    for item in items:
        parser.add_argument("--" + item, action="append_const", const=item, dest="items")
    args = parser.parse_args(argv)
    if not args.items:
        parser.print_help()
        return 1
    print(" ".join(value(item) for item in args.items))
    return 0


def main(argv=None):
    return run_cli("tvm-ffi-config", __doc__.split("\n")[0], _ITEMS, _value, argv)


if __name__ == "__main__":
    sys.exit(main())
