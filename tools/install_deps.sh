#!/usr/bin/env bash
# Installs what the build and tests need. Idempotent: installs only what is missing.
#   apt:  bazel-bootstrap bazel-skylib libgtest-dev build-essential
#         the aarch64 cross toolchain and user-mode emulator for //tests/cross
#         (gcc/g++-aarch64-linux-gnu, the arm64 libc/libstdc++ dev files, qemu-user)
#   pip:  requirements-test.txt (into the interpreter $PYTHON_BIN_PATH, else python3)
#   CUDA 13.0 headers, ptxas and libdevice from NVIDIA's pip wheels when the machine has no
#   CUDA toolkit (no GPU or driver is needed: they build runtime_cuda and check the PTX)
#   the apache-tvm-ffi reference wheel, into $TVM_FFI_REFERENCE_DIR
#   (default $HOME/.cache/tvm-stack/apache-tvm-ffi-0.1.15.post2), a folder of its own
#   because its import name `tvm_ffi` is the same as our package's.
#   apache-tvm 0.27.0.post1 with that apache-tvm-ffi, into $APACHE_TVM_DIR (default
#   $HOME/.cache/tvm-stack/apache-tvm-0.27.0.post1), for the CUDA blob interop test
#   (tests/interop/test_cuda_blob_apache_tvm.py); --no-deps: numpy, ml_dtypes and
#   typing_extensions come from the interpreter (requirements-test.txt and its dependencies).
#   torch 2.14.1 + torchvision 0.29.1 (with numpy, onnx, onnxruntime, llvmlite as pinned in
#   requirements-test.txt) in a virtual environment of their own, $TVM_VISION_VENV (default
#   $HOME/.cache/tvm-stack/vision-torch-2.14.1), for tests/compiler_py/test_vision_models.py:
#   PyPI's torchvision wheels do not import beside the CPU torch 2.13 of requirements-test.txt
#   ('operator torchvision::nms does not exist'). On x86_64 that torch is a CUDA build (about
#   5.5 GB; it runs on the CPU).
#   the wheels of our wheels' dependencies (numpy, llvmlite), into $TVM_STACK_WHEELHOUSE
#   (default $HOME/.cache/tvm-stack/wheelhouse), for the offline install test.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON_BIN_PATH:-python3}"
REF_VERSION="0.1.15.post2"
REF_DIR="${TVM_FFI_REFERENCE_DIR:-$HOME/.cache/tvm-stack/apache-tvm-ffi-$REF_VERSION}"
APACHE_TVM_VERSION="0.27.0.post1"
APACHE_TVM_DIR="${APACHE_TVM_DIR:-$HOME/.cache/tvm-stack/apache-tvm-$APACHE_TVM_VERSION}"
VISION_VENV="${TVM_VISION_VENV:-$HOME/.cache/tvm-stack/vision-torch-2.14.1}"
VISION_PINS=(torch==2.14.1 torchvision==0.29.1)
WHEELHOUSE="${TVM_STACK_WHEELHOUSE:-$HOME/.cache/tvm-stack/wheelhouse}"
# libgloo-dev: the CPU collective engine of Disco's gloo plugin (issue 19; docs/disco.md).
# iproute2: `ip netns`, for the SocketSession test across two network namespaces.
APT_PACKAGES=(bazel-bootstrap bazel-skylib libgtest-dev build-essential
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libgloo-dev
  iproute2)

log() { echo "install_deps: $*" >&2; }

# --- apt ---------------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${APT_PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  log "apt-get install ${missing[*]}"
  # Update the package lists first when there are none; retry once after an update
  # when the install fails (stale lists).
  if ! compgen -G "/var/lib/apt/lists/*_Packages" >/dev/null; then
    $SUDO apt-get update -q
  fi
  if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

# --- Python test requirements -------------------------------------------------
if ! "$PYTHON" - "$ROOT/requirements-test.txt" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version
ok = True
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, want = line.split("==")
    try:
        # A local build tag (torch's "2.13.0+cpu") satisfies "==2.13.0", as pip itself says.
        ok &= version(name).split("+", 1)[0] == want
    except PackageNotFoundError:
        ok = False
sys.exit(0 if ok else 1)
PY
then
  log "pip install -r requirements-test.txt"
  "$PYTHON" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements-test.txt"
fi

# --- CUDA toolkit pieces (headers, ptxas, libdevice) --------------------------------
# Building libtvm_runtime_cuda needs cuda.h; the CUDA codegen tests need ptxas and libdevice
# (no GPU or driver). The machine's toolkit is used when there is one ($CUDA_HOME,
# /usr/local/cuda*); otherwise NVIDIA's pip wheels of the same release provide them, in the
# interpreter's site-packages where bazel/cuda_configure.bzl and the tests look.
have_cuda_toolkit() {
  local d
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /usr/local/cuda-*; do
    [[ -n "$d" && -f "$d/include/cuda.h" && -x "$d/bin/ptxas" && -f "$d/nvvm/libdevice/libdevice.10.bc" ]] && return 0
  done
  "$PYTHON" - <<'PY'
import glob, site, sys
roots = [r for sp in site.getsitepackages() for r in glob.glob(sp + "/nvidia/cu13")]
ok = any(glob.glob(r + "/include/cuda.h") and glob.glob(r + "/bin/ptxas")
         and glob.glob(r + "/nvvm/libdevice/libdevice.10.bc") for r in roots)
sys.exit(0 if ok else 1)
PY
}
if ! have_cuda_toolkit; then
  log "pip install nvidia-cuda-runtime nvidia-cuda-nvcc nvidia-nvvm (CUDA 13.0 headers, ptxas, libdevice)"
  "$PYTHON" -m pip install -q --disable-pip-version-check \
    nvidia-cuda-runtime==13.0.96 nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88
fi

# --- apache-tvm-ffi reference wheel -------------------------------------------
if [[ ! -f "$REF_DIR/apache_tvm_ffi-$REF_VERSION.dist-info/METADATA" ]]; then
  log "pip install --target $REF_DIR apache-tvm-ffi==$REF_VERSION"
  tmp="$REF_DIR.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$(dirname "$REF_DIR")"
  "$PYTHON" -m pip install -q --disable-pip-version-check --no-deps --target "$tmp" \
    "apache-tvm-ffi==$REF_VERSION"
  rm -rf "$REF_DIR"
  mv "$tmp" "$REF_DIR"   # atomic: never a half-installed reference folder
fi

# --- apache-tvm (the CUDA blob interop peer) ----------------------------------
if [[ ! -f "$APACHE_TVM_DIR/apache_tvm-$APACHE_TVM_VERSION.dist-info/METADATA" ]]; then
  log "pip install --target $APACHE_TVM_DIR apache-tvm==$APACHE_TVM_VERSION (~100 MB)"
  tmp="$APACHE_TVM_DIR.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$(dirname "$APACHE_TVM_DIR")"
  "$PYTHON" -m pip install -q --disable-pip-version-check --no-deps --target "$tmp" \
    "apache-tvm==$APACHE_TVM_VERSION" "apache-tvm-ffi==$REF_VERSION"
  rm -rf "$APACHE_TVM_DIR"
  mv "$tmp" "$APACHE_TVM_DIR"   # atomic, as above
fi

# --- torchvision venv (tests/compiler_py/test_vision_models.py) ----------------------
# Made in place (a venv cannot be moved); the stamp file, written last, says it is complete.
VISION_STAMP="$VISION_VENV/.tvm-stack-complete"
vision_pins=("${VISION_PINS[@]}")
while read -r line; do
  line="${line%%#*}"; line="${line// /}"
  case "$line" in numpy==*|onnx==*|onnxruntime==*|llvmlite==*) vision_pins+=("$line") ;; esac
done < "$ROOT/requirements-test.txt"
if [[ ! -f "$VISION_STAMP" || "$(cat "$VISION_STAMP")" != "${vision_pins[*]}" ]]; then
  log "venv $VISION_VENV: pip install ${vision_pins[*]} (about 5.5 GB on x86_64)"
  rm -rf "$VISION_VENV"
  mkdir -p "$(dirname "$VISION_VENV")"
  "$PYTHON" -m venv "$VISION_VENV"
  "$VISION_VENV/bin/python" -m pip install -q --disable-pip-version-check "${vision_pins[@]}"
  echo "${vision_pins[*]}" > "$VISION_STAMP"
fi

# --- wheelhouse for the offline wheel-install test ---------------------------------
# The versions requirements-test.txt pins, as wheels for this interpreter.
wheelhouse_pins=()
while read -r line; do
  case "$line" in numpy==*|llvmlite==*) wheelhouse_pins+=("$line") ;; esac
done < "$ROOT/requirements-test.txt"
have_all=1
for pin in "${wheelhouse_pins[@]}"; do
  compgen -G "$WHEELHOUSE/${pin%%==*}-${pin##*==}-*.whl" >/dev/null || have_all=0
done
if ((!have_all)); then
  log "pip download ${wheelhouse_pins[*]} -> $WHEELHOUSE"
  mkdir -p "$WHEELHOUSE"
  "$PYTHON" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$WHEELHOUSE" "${wheelhouse_pins[@]}"
fi
