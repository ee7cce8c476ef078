/*
 * Registration helpers for libtvm_compiler's own globals (never installed).
 */
#ifndef TVM_COMPILER_SRC_SUPPORT_REGISTRY_H_
#define TVM_COMPILER_SRC_SUPPORT_REGISTRY_H_

#include <tvm/ffi/function.h>

#include <cstdio>
#include <cstdlib>

namespace tvm {

/*! \brief Registers a typed callable as a global at load time; a clash aborts loudly. */
template <typename TCallable>
void RegisterCompilerGlobal(const char* name, TCallable f) {
  try {
    ffi::Function::SetGlobal(name, ffi::Function::FromTyped(std::move(f), name));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tvm_compiler: cannot register %s: %s\n", name, e.what());
    std::abort();
  }
}

/*! \brief Registers a packed callable `void(ffi::PackedArgs, ffi::Any*)` as a global. */
template <typename TCallable>
void RegisterCompilerPacked(const char* name, TCallable f) {
  try {
    ffi::Function::SetGlobal(name, ffi::Function::FromPacked(std::move(f)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tvm_compiler: cannot register %s: %s\n", name, e.what());
    std::abort();
  }
}

}  // namespace tvm
#endif  // TVM_COMPILER_SRC_SUPPORT_REGISTRY_H_
