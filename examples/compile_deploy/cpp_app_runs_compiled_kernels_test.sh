#!/usr/bin/env bash
# The .so exported by the compiler loads in the C++ deployment app (libtvm_ffi +
# libtvm_runtime only), whose VM program calls the compiled kernels by name.
set -euo pipefail
compile="$1"; app="$2"
out="${TEST_TMPDIR:-$(mktemp -d)}/compiled_kernels.so"
"$compile" "$out"
"$app" "$out" | tee "${TEST_TMPDIR:-/tmp}/app.txt"
grep -q "deploy_app: OK" "${TEST_TMPDIR:-/tmp}/app.txt"
