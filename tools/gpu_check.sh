#!/bin/bash
# Prepares the device-side checks (tools/gpu_check/) in .devcheck/ (ignored by git):
# the built libraries and Python packages as plain files (no bazel-bin symlinks), the
# hand-written kernels as PTX, cubin (ptxas) and fatbin, run.py and the check modules.
# Then, on a lent GPU machine (one `run` call, .devcheck carried):
#   set -o pipefail; PYTHONUNBUFFERED=1 python3 .devcheck/run.py 2>&1 | tee $OUT/log
# run.py runs runtime_checks (hand-written kernels) and compiled_checks (kernels tvm.compile
# made here for cuda -arch=sm_90, exported as .so files: tools/gpu_check/prepare_compiled.py)
# and library_checks (NCCL through Disco, one worker per GPU; cuBLAS vs numpy with GFLOP/s)
# and model_checks (BERT-class encoder and ResNet-50 compiled for sm_90 on the device, vs
# onnxruntime on its CPU, timed beside torch eager).
# libnccl.so.2 / libcublas.so.13 are NOT put here: the lent image preinstalls the pip wheels
# nvidia-nccl-cu13 and nvidia-cublas (tvm finds them in site-packages), and their files
# (344 MB, 54 + 542 MB) exceed what a run carries (64 MiB). The libtvm_disco_nccl.so plugin
# is staged with the other libraries (bazel-bin/python/tvm/lib).
set -euo pipefail
cd "$(dirname "$0")/.."
CUDA=${CUDA_HOME:-/usr/local/cuda}
USE_BAZEL_VERSION=4 bazel build --config=ci //python/tvm //python:tvm_ffi
rm -rf .devcheck && mkdir -p .devcheck/python
cp -r python/tvm_ffi python/tvm .devcheck/python/
find .devcheck/python -name __pycache__ -prune -exec rm -rf {} +
# No Bazel packages inside the workspace copy (//... would pick them up).
find .devcheck -name 'BUILD*' -delete
mkdir -p .devcheck/python/tvm_ffi/lib .devcheck/python/tvm/lib
cp -L bazel-bin/python/tvm_ffi/lib/libtvm_ffi.so .devcheck/python/tvm_ffi/lib/
cp -L bazel-bin/python/tvm/lib/*.so .devcheck/python/tvm/lib/
cp tools/gpu_check/*.py tools/gpu_check/runtime_kernels.ptx .devcheck/
python3 tools/gpu_check/prepare_compiled.py .devcheck/compiled
"$CUDA/bin/ptxas" -arch=sm_90 .devcheck/runtime_kernels.ptx -o .devcheck/runtime_kernels.cubin
"$CUDA/bin/fatbinary" --create=.devcheck/runtime_kernels.fatbin \
  --image3=kind=elf,sm=90,file=.devcheck/runtime_kernels.cubin \
  --image3=kind=ptx,sm=90,file=.devcheck/runtime_kernels.ptx
du -sh .devcheck
echo "prepared .devcheck/ (carry it; run: python3 .devcheck/run.py)"
