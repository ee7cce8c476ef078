/*
 * Registration helpers for libtvm_runtime's own globals (never installed).
 */
#ifndef TVM_RUNTIME_SRC_SUPPORT_REGISTRY_H_
#define TVM_RUNTIME_SRC_SUPPORT_REGISTRY_H_

#include <tvm/ffi/function.h>

#include <cstdio>
#include <cstdlib>

namespace tvm {
namespace runtime {

/*! \brief Registers a typed callable as a global at load time; a clash aborts loudly. */
template <typename TCallable>
void RegisterRuntimeGlobal(const char* name, TCallable f) {
  try {
    ffi::Function::SetGlobal(name, ffi::Function::FromTyped(std::move(f), name));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tvm_runtime: cannot register %s: %s\n", name, e.what());
    std::abort();
  }
}

/*! \brief Registers a packed callable `void(ffi::PackedArgs, ffi::Any*)` as a global. */
template <typename TCallable>
void RegisterRuntimePacked(const char* name, TCallable f) {
  try {
    ffi::Function::SetGlobal(name, ffi::Function::FromPacked(std::move(f)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tvm_runtime: cannot register %s: %s\n", name, e.what());
    std::abort();
  }
}

}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_SUPPORT_REGISTRY_H_
