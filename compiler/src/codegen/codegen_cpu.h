/*
 * CodeGenCPU: host code as LLVM IR text ("codegen.LLVMText"). Every PrimFunc is one function
 * `__tvm_ffi_<name>` in the packed calling convention tir.transform.MakePackedAPI produced:
 *   i32 (ptr self, ptr args (TVMFFIAny[]), i32 num_args, ptr result)
 * returning 0, or -1 with the error raised through libtvm_ffi. What is host-specific lives
 * here, over the generic emitter (codegen_llvm.h): assertions, the `tir.ffi_arg_*` /
 * `tir.dltensor_*` reads MakePackedAPI writes, workspace calls, packed calls (how host code
 * launches kernels), and parallel loops through the runtime's thread pool.
 */
#ifndef TVM_COMPILER_CODEGEN_CODEGEN_CPU_H_
#define TVM_COMPILER_CODEGEN_CODEGEN_CPU_H_

#include <string>
#include <unordered_map>

#include "codegen_llvm.h"
#include "tensor_arg_check.h"

namespace tvm {
namespace codegen {

class CodeGenCPU : public CodeGenLLVM {
 public:
  /*! \brief One function in the packed calling convention (ValueError if it is not). */
  void AddFunction(const PrimFunc& f, const std::string& name);
  /*! \brief The module's text; `triple` may be empty (then LLVM's default). */
  std::string Finish(const std::string& triple);
  /*! \brief How the module holds the tensor-argument checker (tensor_arg_check.h). */
  CheckerLinkage checker_linkage_{CheckerLinkage::kInternal};

 protected:
  void Stmt(const tvm::Stmt& s) override;
  bool ParallelFor(const ForNode* n, const Val& mn, const Val& ext) override;
  Val Call(const CallNode* n, DataType t) override;

 private:
  /*! \brief if (!cond) raise kind(msg); continues in a fresh block. */
  void Check(const std::string& cond, const std::string& kind, const std::string& msg);
  /*! \brief Returns -1 (the error is already raised) unless `cond`; continues in a fresh block. */
  void ReturnUnless(const std::string& cond);
  Val FfiIntrinsic(const std::string& op, const CallNode* n);
  Val CheckedTensor(const CallNode* n);
  void DeclareChecker();
  Val CallPacked(const CallNode* n);

  bool in_parallel_{false};
  bool own_work_{false};  // the packed function being generated stores outside its lambdas
  int lambda_count_{0};
  std::unordered_map<std::string, std::string> packed_cache_;  // function name -> cache global
  std::unordered_map<std::string, std::string> specs_;  // tensor spec (i64 list) -> its global
};

}  // namespace codegen
}  // namespace tvm
#endif  // TVM_COMPILER_CODEGEN_CODEGEN_CPU_H_
