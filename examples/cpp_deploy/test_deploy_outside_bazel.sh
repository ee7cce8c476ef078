#!/usr/bin/env bash
# Builds deploy_app with the plain compiler, as a user would outside Bazel: only the ffi and
# runtime include folders (no compiler headers exist on the include path) and the two
# libraries, then runs it on the kernel library.
set -euo pipefail
ffi_lib="$1"; runtime_lib="$2"; kernels="$3"; app_src="$4"
work="${TEST_TMPDIR:-$(mktemp -d)}/deploy"
mkdir -p "$work/lib"
cp "$ffi_lib" "$runtime_lib" "$work/lib/"
root="$(dirname "$(dirname "$(dirname "$app_src")")")"
# --no-as-needed: the app reaches the runtime only through the registry (no direct symbol
# reference), and toolchains that default to --as-needed would drop it.
# Under --config=asan the libraries are instrumented: the app must be too.
san=()
if [[ "${TVM_STACK_SANITIZE:-}" == "1" ]]; then san=(-fsanitize=address,undefined); fi
c++ -std=c++17 -O1 "${san[@]}" "$app_src" -I"$root/ffi/include" -I"$root/runtime/include" \
  -L"$work/lib" -Wl,--no-as-needed -ltvm_runtime -ltvm_ffi -Wl,-rpath,"$work/lib" \
  -o "$work/deploy_app"
# The app needs no compiler library at run time either.
if readelf -d "$work/deploy_app" | grep -q tvm_compiler; then
  echo "deploy_app depends on the compiler" >&2
  exit 1
fi
"$work/deploy_app" "$kernels" | tee "$work/out.txt"
grep -q "deploy_app: OK" "$work/out.txt"
