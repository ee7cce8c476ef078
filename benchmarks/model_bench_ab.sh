#!/usr/bin/env bash
# The model benchmark for an earlier commit's Python tree and this tree's, back to back, both on
# this tree's built libraries (for changes that touch only the Python side of the compiler):
#   benchmarks/model_bench_ab.sh <commit> [model_bench.py arguments, e.g. --no-apache-tvm]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COMMIT="${1:?usage: model_bench_ab.sh <commit> [args]}"
shift
work="$(mktemp -d)"
trap 'git -C "$ROOT" worktree remove --force "$work/before" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$ROOT" worktree add -q --detach "$work/before" "$COMMIT"
mkdir "$work/libs"
for lib in ffi/libtvm_ffi.so runtime/libtvm_runtime.so compiler/libtvm_compiler.so \
           runtime_cuda/libtvm_runtime_cuda.so; do
  [[ -e "$ROOT/bazel-bin/$lib" ]] && cp -L "$ROOT/bazel-bin/$lib" "$work/libs/"
done
export TVM_LIBRARY_PATH="$work/libs" TVM_FFI_LIBRARY_PATH="$work/libs/libtvm_ffi.so"
for side in before after; do
  tree="$work/before"; [[ $side == after ]] && tree="$ROOT"
  echo "=== $side ($(git -C "$tree" rev-parse --short HEAD))"
  (cd "$tree" && PYTHONPATH=python python3 benchmarks/model_bench.py "$@")
done
