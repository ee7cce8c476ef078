/*
 * Build facts of this library, reported as they were at compile time (never from the
 * environment): `ffi.BuildInfo()` returns a JSON object that tvm_ffi.libinfo() and
 * tvm.support.libinfo() merge.
 */
#include <tvm/ffi/function.h>

#include <string>

#include "../support/internal.h"

#ifndef TVM_GIT_REVISION
#define TVM_GIT_REVISION "unknown"
#endif

namespace tvm {
namespace ffi {
namespace {

#define TVM_FFI_STRINGIFY_(x) #x
#define TVM_FFI_STRINGIFY(x) TVM_FFI_STRINGIFY_(x)

std::string BuildInfoJSON() {
  std::string sanitizers;
#if defined(__SANITIZE_ADDRESS__)
  sanitizers = "address";
#endif
  std::string compiler;
#if defined(__clang__)
  compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  compiler = "gcc " __VERSION__;
#else
  compiler = "unknown";
#endif
  auto field = [](const char* k, const std::string& v) {
    return std::string("\"") + k + "\": \"" + v + "\"";
  };
  std::string out = "{";
  out += field("library", "tvm_ffi") + ", ";
  out += field("version", TVM_FFI_STRINGIFY(TVM_FFI_VERSION_MAJOR) "." TVM_FFI_STRINGIFY(
                              TVM_FFI_VERSION_MINOR) "." TVM_FFI_STRINGIFY(TVM_FFI_VERSION_PATCH)) + ", ";
  out += field("git_revision", TVM_GIT_REVISION) + ", ";
  out += field("compiler", compiler) + ", ";
  out += field("cxx_standard", TVM_FFI_STRINGIFY(__cplusplus)) + ", ";
#if defined(__OPTIMIZE__)
  out += field("optimized", "ON") + ", ";
#else
  out += field("optimized", "OFF") + ", ";
#endif
  out += field("sanitizers", sanitizers) + ", ";
  out += field("dlpack_version", TVM_FFI_STRINGIFY(DLPACK_MAJOR_VERSION) "." TVM_FFI_STRINGIFY(
                                     DLPACK_MINOR_VERSION));
  out += "}";
  return out;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.BuildInfo", []() { return String(BuildInfoJSON()); });
  internal::RegisterBuiltin("ffi.GetRegisteredTypeKeys", []() {
    std::string out;
    for (const std::string& key : internal::RegisteredTypeKeys()) out += key + "\n";
    return String(out);
  });
}

}  // namespace ffi
}  // namespace tvm

extern "C" void TVMFFIGetVersion(TVMFFIVersion* out_version) {
  if (out_version == nullptr) return;
  out_version->major = TVM_FFI_VERSION_MAJOR;
  out_version->minor = TVM_FFI_VERSION_MINOR;
  out_version->patch = TVM_FFI_VERSION_PATCH;
}
