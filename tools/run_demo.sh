#!/usr/bin/env bash
# The main job: compiles a real kernel (dense + bias + relu, scheduled for the CPU) with
# tvm.compile, exports it as a .so, and runs it in a separate runtime-only process that checks
# the result against numpy and times it; compiles an ONNX model (a ResNet-style CNN) with the
# command line into one .so and runs it with the runtime-only C++ runner against onnxruntime. Then the FFI quick start (C++ kernels called from
# Python with zero-copy tensors) and a C++ app deploying with libtvm_ffi + libtvm_runtime only.
# Installs what it needs first.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/tools/install_deps.sh"
export USE_BAZEL_VERSION=4
PYTHON_BIN_PATH="${PYTHON_BIN_PATH:-$(python3 -c 'import sys; print(sys.executable)')}"
export PYTHON_BIN_PATH

echo "== Compile, export, run in a runtime-only process =="
bazel build --config=ci //examples/compile_deploy:compile_and_export //examples/compile_deploy:run_exported 2>/dev/null
BIN="$(bazel info bazel-bin 2>/dev/null)"
OUT="$(mktemp -d)/dense_relu.so"
"$BIN/examples/compile_deploy/compile_and_export" "$OUT" 256 256 256
TVM_USE_RUNTIME_LIB=1 "$BIN/examples/compile_deploy/run_exported" "$OUT" 256 256 256
echo
echo "== A model: ONNX -> python -m tvm.driver compile -> one .so -> the runtime-only C++ runner =="
bazel build --config=ci //examples/compile_model:make_model //examples/compile_model:tvmc \
  //examples/compile_model:compare //examples/cpp_deploy:run_model 2>/dev/null
MODEL_DIR="$(mktemp -d)"
"$BIN/examples/compile_model/make_model" "$MODEL_DIR"
"$BIN/examples/compile_model/tvmc" compile "$MODEL_DIR/model.onnx" -o "$MODEL_DIR/model.so"
"$BIN/examples/cpp_deploy/run_model" "$MODEL_DIR/model.so" "$MODEL_DIR/y.npy" "$MODEL_DIR/x.npy"
"$BIN/examples/compile_model/compare" "$MODEL_DIR/y.npy" "$MODEL_DIR/expected.npy"
echo
echo "== Python quick start: C++ kernels called from Python =="
bazel run --config=ci //examples/quickstart:quickstart 2>/dev/null
echo
echo "== C++ deployment: libtvm_ffi + libtvm_runtime only, a VM program calling kernels =="
bazel build --config=ci //examples/cpp_deploy:deploy_app //examples/cpp_deploy:deploy_kernels.so 2>/dev/null
"$BIN/examples/cpp_deploy/deploy_app" "$BIN/examples/cpp_deploy/deploy_kernels.so"
