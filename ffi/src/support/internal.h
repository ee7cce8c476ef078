/*
 * Declarations shared between the library's own translation units (never installed).
 */
#ifndef TVM_FFI_SRC_SUPPORT_INTERNAL_H_
#define TVM_FFI_SRC_SUPPORT_INTERNAL_H_

#include <tvm/ffi/function.h>

#include <string>
#include <vector>

namespace tvm {
namespace ffi {
namespace internal {

/*! \brief Every registered type key, in index order. */
std::vector<std::string> RegisteredTypeKeys();

/*! \brief Registers a library-provided global at load time; aborts on a duplicate name. */
void RegisterBuiltinGlobal(const char* name, Function f);

/*! \brief Registers a typed C++ callable as a library-provided global. */
template <typename TCallable>
void RegisterBuiltin(const char* name, TCallable f) {
  RegisterBuiltinGlobal(name, Function::FromTyped(std::move(f), name));
}

/*! \brief Registers a packed callable `void(PackedArgs, Any*)` as a library-provided global. */
template <typename TCallable>
void RegisterBuiltinPacked(const char* name, TCallable f) {
  RegisterBuiltinGlobal(name, Function::FromPacked(std::move(f)));
}

}  // namespace internal
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_SRC_SUPPORT_INTERNAL_H_
