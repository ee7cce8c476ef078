/*
 * The tensor-argument checker every host module carries once: `@__tvm_check_tensor_arg`, an
 * internal LLVM function that the packed functions call for each tensor parameter
 * (tir.ffi_arg_checked_tensor, written by tir.transform.MakePackedAPI).
 *
 *   ptr @__tvm_check_tensor_arg(ptr args, i32 i, ptr spec, ptr where, ptr dtype, ptr device)
 *
 * checks args[i] (a TVMFFIAny) against `spec`, a constant i64 array
 *   { ndim, dtype (code | bits << 8 | lanes << 16), device_type, check_strides, dim_0 ... }
 * (a dim of -1 is not checked: the caller binds or checks it in TIR) and returns its DLTensor*
 * (a Tensor object's DLTensor sits 24 bytes after its header; a DLTensor* argument is the
 * pointer). On a mismatch it raises, through TVMFFIErrorSetRaisedFromCStr, the TypeError or
 * ValueError the per-check asserts raised before (messages built with snprintf from `where`,
 * "f: argument 0 (A)", and the dtype/device names) and returns null; the caller then returns
 * -1. One call instead of inline checks: those were ~20 KB of LLVM IR per kernel and a third
 * of LLVM's time on a CNN; the module stays self-contained (no new runtime symbol).
 *
 * A module compiled in parts (one LLVM module per core, objects joined by a relocatable
 * link) defines it in one part only, `weak_odr hidden`, and declares it `hidden` in the
 * others: LLVM spends ~12 ms on it per module (an assertion-enabled llvmlite), which was
 * paid again by every part and by the VM's shape functions compiled at the end.
 */
#ifndef TVM_COMPILER_CODEGEN_TENSOR_ARG_CHECK_H_
#define TVM_COMPILER_CODEGEN_TENSOR_ARG_CHECK_H_

#include <functional>
#include <string>

namespace tvm {
namespace codegen {

/*! \brief The checker's name in the module. */
constexpr const char* kTensorArgChecker = "__tvm_check_tensor_arg";

/*! \brief How a module holds the checker. */
enum class CheckerLinkage {
  kInternal,  ///< its own private copy (a module compiled whole)
  kDefine,    ///< the copy the other parts of the module use (weak_odr hidden)
  kDeclare,   ///< none: another part defines it (declare hidden)
};

/*!
 * \brief The checker's definition (LLVM IR text) with `linkage` (kInternal or kDefine).
 * `str` returns the global holding a C string (the codegen's shared string table), so
 * messages and error kinds are not duplicated.
 */
std::string TensorArgCheckerIR(const std::function<std::string(const std::string&)>& str,
                               CheckerLinkage linkage);

/*! \brief The declaration a kDeclare part carries. */
std::string TensorArgCheckerDecl();

}  // namespace codegen
}  // namespace tvm
#endif  // TVM_COMPILER_CODEGEN_TENSOR_ARG_CHECK_H_
