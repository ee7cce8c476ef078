/*
 * Registration of libtvm_runtime_extra's globals at load time (static initialisers). A clash
 * aborts loudly: nothing can catch an exception thrown while a library is being loaded.
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_REGISTRY_H_
#define TVM_RUNTIME_EXTRA_SRC_REGISTRY_H_

#include <tvm/ffi/function.h>

#include <cstdio>
#include <cstdlib>

namespace tvm {
namespace runtime {
namespace extra {

/*! \brief Registers a typed callable as the global `name`. */
template <typename TCallable>
void RegisterGlobal(const char* name, TCallable f) {
  try {
    ffi::Function::SetGlobal(name, ffi::Function::FromTyped(std::move(f), name));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tvm_runtime_extra: cannot register %s: %s\n", name, e.what());
    std::abort();
  }
}

/*! \brief Registers a packed callable `void(ffi::PackedArgs, ffi::Any*)` as the global `name`. */
template <typename TCallable>
void RegisterPacked(const char* name, TCallable f) {
  try {
    ffi::Function::SetGlobal(name, ffi::Function::FromPacked(std::move(f)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tvm_runtime_extra: cannot register %s: %s\n", name, e.what());
    std::abort();
  }
}

}  // namespace extra
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_REGISTRY_H_
