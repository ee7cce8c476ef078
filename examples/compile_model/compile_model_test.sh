#!/usr/bin/env bash
# ONNX model -> `tvm.driver compile` -> one .so -> the runtime-only C++ runner -> compared
# with onnxruntime. Args: make_model tvmc run_model compare.
set -euo pipefail
make_model="$1" tvmc="$2" run_model="$3" compare="$4"
dir="${TEST_TMPDIR:-$(mktemp -d)}/model"
"$make_model" "$dir"
"$tvmc" compile "$dir/model.onnx" -o "$dir/model.so"
"$run_model" "$dir/model.so" "$dir/y.npy" "$dir/x.npy"
"$compare" "$dir/y.npy" "$dir/expected.npy"
