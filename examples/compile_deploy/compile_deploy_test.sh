#!/usr/bin/env bash
# Compile + export in one process, then load and run in a runtime-only one.
set -euo pipefail
if [[ "${TVM_STACK_SANITIZE:-}" == "1" ]]; then
  # --config=asan: the (uninstrumented) Python interpreter must load the ASan runtime first,
  # and libstdc++ with it; CPython itself is not leak-clean.
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so) libstdc++.so.6 ${LD_PRELOAD:-}"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"  # last one wins
fi
compile="$1"; run="$2"
out="${TEST_TMPDIR:-$(mktemp -d)}/dense_relu.so"
"$compile" "$out" 64 48 80
TVM_USE_RUNTIME_LIB=1 "$run" "$out" 64 48 80 | tee "${TEST_TMPDIR:-/tmp}/run.txt"
grep -q "result check: .* OK" "${TEST_TMPDIR:-/tmp}/run.txt"
grep -q "with tvm_runtime" "${TEST_TMPDIR:-/tmp}/run.txt"    # the runtime (and any backends)
! grep -q "tvm_compiler" "${TEST_TMPDIR:-/tmp}/run.txt"     # no compiler in that process
