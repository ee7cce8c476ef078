#!/usr/bin/env bash
# The main job: builds a C++ kernel library exported through the tvm-ffi ABI and runs it from
# Python (zero-copy numpy/torch tensors, C++ calling back into Python), then runs a C++
# application that deploys with the runtime alone (a VM program over the same kind of
# kernels). Installs what it needs first. (Until the compiler lands, the kernels are C++.)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/tools/install_deps.sh"
export USE_BAZEL_VERSION=4
PYTHON_BIN_PATH="${PYTHON_BIN_PATH:-$(python3 -c 'import sys; print(sys.executable)')}"
export PYTHON_BIN_PATH

echo "== Python quick start: C++ kernels called from Python =="
bazel run --config=ci //examples/quickstart:quickstart 2>/dev/null
echo
echo "== C++ deployment: libtvm_ffi + libtvm_runtime only, a VM program calling kernels =="
bazel build --config=ci //examples/cpp_deploy:deploy_app //examples/cpp_deploy:deploy_kernels.so 2>/dev/null
BIN="$(bazel info bazel-bin 2>/dev/null)"
"$BIN/examples/cpp_deploy/deploy_app" "$BIN/examples/cpp_deploy/deploy_kernels.so"
