#!/usr/bin/env bash
# Compile + export in one process, then load and run in a runtime-only one.
set -euo pipefail
compile="$1"; run="$2"
out="${TEST_TMPDIR:-$(mktemp -d)}/dense_relu.so"
"$compile" "$out" 64 48 80
TVM_USE_RUNTIME_LIB=1 "$run" "$out" 64 48 80 | tee "${TEST_TMPDIR:-/tmp}/run.txt"
grep -q "result check: .* OK" "${TEST_TMPDIR:-/tmp}/run.txt"
grep -q "with tvm_runtime$" "${TEST_TMPDIR:-/tmp}/run.txt"   # no compiler in that process
