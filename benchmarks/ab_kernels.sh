#!/usr/bin/env bash
# The compiled kernels of benchmarks/ (matmul_bench.py, reduction_bench.py) for two checkouts,
# interleaved in one run, so a compiler change is measured against its parent on the same
# machine state. Each tree's own script runs against that tree's libraries (their schedule
# APIs may differ). Build each tree first:
#   bazel build //compiler:libtvm_compiler.so //runtime:libtvm_runtime.so //ffi:libtvm_ffi.so
# Usage: benchmarks/ab_kernels.sh OLD_TREE NEW_TREE [ROUNDS]
set -euo pipefail
OLD="$(cd "$1" && pwd)"; NEW="$(cd "$2" && pwd)"; ROUNDS="${3:-2}"
run() {  # tree script
  local tree="$1" script="$2" bin
  bin="$(cd "$tree" && readlink -f bazel-bin)"
  TVM_LIBRARY_PATH="$bin/ffi:$bin/runtime:$bin/compiler" PYTHONPATH="$tree/python" \
    python3 "$tree/benchmarks/$script" 2>&1 | grep -E "threads=|relu" | sed "s|^|  $(basename "$tree") |"
}
for r in $(seq 1 "$ROUNDS"); do
  for script in matmul_bench.py reduction_bench.py; do
    echo "== round $r: $script"
    run "$OLD" "$script"
    run "$NEW" "$script"
  done
done
