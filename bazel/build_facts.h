/*
 * The fields every shipped library's `<lib>.BuildInfo()` JSON starts with (library, version,
 * git revision, C++ compiler, sanitizers). Included only by tvm_build_info targets, which
 * define TVM_STACK_VERSION and TVM_GIT_REVISION; inline so each library compiles its own facts.
 */
#ifndef TVM_BAZEL_BUILD_FACTS_H_
#define TVM_BAZEL_BUILD_FACTS_H_

#include <string>

#ifndef TVM_GIT_REVISION
#define TVM_GIT_REVISION "unknown"
#endif
#ifndef TVM_STACK_VERSION  // written once, in bazel/version.bzl; passed by tvm_build_info
#error "TVM_STACK_VERSION is not defined (build through tvm_build_info)"
#endif

namespace tvm {

/*! \brief `{"library": ..., ..., ` — the caller appends its own fields and the closing brace. */
inline std::string BuildFactsPrefix(const char* library, bool with_sanitizers = true) {
  std::string out = std::string("{\"library\": \"") + library + "\", \"version\": \"" TVM_STACK_VERSION "\", ";
  out += "\"git_revision\": \"" TVM_GIT_REVISION "\", ";
#if defined(__GNUC__) && !defined(__clang__)
  out += "\"compiler\": \"gcc " __VERSION__ "\", ";
#else
  out += "\"compiler\": \"" __VERSION__ "\", ";
#endif
  if (with_sanitizers) {
#if defined(__SANITIZE_ADDRESS__)
    out += "\"sanitizers\": \"address\", ";
#else
    out += "\"sanitizers\": \"\", ";
#endif
  }
  return out;
}

}  // namespace tvm
#endif  // TVM_BAZEL_BUILD_FACTS_H_
