/*
 * LLVM IR text codegen for CPU ("codegen.LLVMText"): one function `__tvm_ffi_<name>` per
 * PrimFunc in the packed calling convention that tir.transform.MakePackedAPI produced:
 *   i32 (ptr self, ptr args (TVMFFIAny[]), i32 num_args, ptr result)
 * The argument checks are already TIR (AssertStmt, raised through
 * TVMFFIErrorSetRaisedFromCStr); codegen lowers the `tir.ffi_arg_*` / `tir.dltensor_*`
 * intrinsics to loads. Temporaries come from TVMBackendAllocWorkspace (large) or the stack.
 * The text is opaque-pointer LLVM IR; llvmlite does the rest.
 */
#include "codegen_llvm.h"

#include "../support/registry.h"

namespace tvm {

using codegen::CodeGen;

/*! \brief " flag1 flag2" from "flag1,flag2" after checking each is an LLVM fast-math flag. */
std::string FastMathFlags(const std::string& list) {
  static const char* const kFlags[] = {"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"};
  std::string out;
  std::istringstream is(list);
  for (std::string flag; std::getline(is, flag, ',');) {
    if (flag.empty()) continue;
    if (std::find(std::begin(kFlags), std::end(kFlags), flag) == std::end(kFlags)) {
      TVM_FFI_THROW(ValueError) << "codegen: '" << flag << "' is not an LLVM fast-math flag "
                                << "(fast, nnan, ninf, nsz, arcp, contract, afn, reassoc)";
    }
    out += " " + flag;
  }
  return out;
}

std::string CodegenLLVMText(const IRModule& mod, const std::string& triple, const std::string& fast_math) {
  CodeGen cg;
  cg.fast_math_ = FastMathFlags(fast_math);
  for (const auto& kv : mod->functions) {
    PrimFunc f = AsPrimFunc(kv.second);
    if (!f.defined()) TVM_FFI_THROW(TypeError) << "codegen: " << std::string(kv.first) << " is not a PrimFunc";
    cg.AddFunction(f, f.GlobalSymbol(std::string(kv.first)));
  }
  return cg.Finish(triple);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("codegen.LLVMText", [](IRModule mod, std::string triple, std::string fast_math) {
    return CodegenLLVMText(mod, triple, fast_math);
  });
}

}  // namespace tvm
