"""`python -m tvm.driver` as a Bazel binary (the command line with the built libraries)."""

import sys

from tvm.driver.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
