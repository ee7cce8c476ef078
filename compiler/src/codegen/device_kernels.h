/*
 * The kernels of a device module (what SplitHostDevice made), for the device code generators
 * (codegen_nvptx.cc, codegen_cuda.cc). Internal to libtvm_compiler.
 */
#ifndef TVM_COMPILER_CODEGEN_DEVICE_KERNELS_H_
#define TVM_COMPILER_CODEGEN_DEVICE_KERNELS_H_

#include <tvm/ffi/error.h>
#include <tvm/tir/ir.h>

#include <string>

namespace tvm {
namespace codegen {

/*!
 * \brief Calls fn(kernel, its global symbol) for every function of `mod`; TypeError/ValueError
 * naming `who` when one is not a PrimFunc with calling_conv "device_kernel".
 */
template <typename F>
void ForEachKernel(const IRModule& mod, const char* who, F fn) {
  for (const auto& kv : mod->functions) {
    PrimFunc f = AsPrimFunc(kv.second);
    if (!f.defined()) TVM_FFI_THROW(TypeError) << who << ": " << std::string(kv.first) << " is not a PrimFunc";
    std::optional<Any> cc = f->attrs.Get(String("calling_conv"));
    std::optional<String> ccs = cc.has_value() ? cc->as<String>() : std::nullopt;
    if (!ccs.has_value() || std::string(*ccs) != "device_kernel") {
      TVM_FFI_THROW(ValueError) << who << ": " << std::string(kv.first)
                                << " is not a GPU kernel; run tir.transform.SplitHostDevice first";
    }
    fn(f, f.GlobalSymbol(std::string(kv.first)));
  }
}

}  // namespace codegen
}  // namespace tvm
#endif  // TVM_COMPILER_CODEGEN_DEVICE_KERNELS_H_
