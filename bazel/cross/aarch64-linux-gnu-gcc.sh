#!/bin/sh
# The compiler driver of //bazel/cross:aarch64_cc_toolchain.
#
# --no-as-needed comes first: Debian's gcc links --as-needed by default, which drops
# libtvm_runtime.so from an app that reaches it only through the registry. A toolchain
# feature cannot place it there (Bazel 4 puts the libraries before every toolchain-defined
# link flag unless the toolchain re-defines libraries_to_link); gcc ignores it when compiling.
gcc=/usr/bin/aarch64-linux-gnu-gcc
if [ ! -x "$gcc" ]; then
  echo "$gcc is missing: run tools/install_deps.sh (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross)" >&2
  exit 127
fi
exec "$gcc" -Wl,--no-as-needed "$@"
