#!/usr/bin/env bash
# The .so exported by the compiler loads in the C++ deployment app (libtvm_ffi +
# libtvm_runtime only), whose VM program calls the compiled kernels by name.
set -euo pipefail
if [[ "${TVM_STACK_SANITIZE:-}" == "1" ]]; then
  # --config=asan: the (uninstrumented) Python interpreter must load the ASan runtime first,
  # and libstdc++ with it; CPython itself is not leak-clean.
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so) libstdc++.so.6 ${LD_PRELOAD:-}"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"  # last one wins
fi
compile="$1"; app="$2"
out="${TEST_TMPDIR:-$(mktemp -d)}/compiled_kernels.so"
"$compile" "$out"
"$app" "$out" | tee "${TEST_TMPDIR:-/tmp}/app.txt"
grep -q "deploy_app: OK" "${TEST_TMPDIR:-/tmp}/app.txt"
# The compiled library carries a VM executable as an imported module (its import tree).
grep -q "imports 1 module(s) \[relax.VMExecutable\]" "${TEST_TMPDIR:-/tmp}/app.txt"
