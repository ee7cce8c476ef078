/*
 * ExecBuilder: the C++ face of the `vm.builder.*` globals, for code outside libtvm_runtime
 * (compilers, tools, tests). Inline calls only, like <tvm/runtime/tensor.h>: it needs
 * libtvm_ffi's headers and libtvm_runtime loaded, never runtime C++ symbols.
 *
 *   ExecBuilder b;
 *   b.EmitFunction("main", 2, {"x", "y"});
 *   b.EmitCall("add", {Arg::Register(0), Arg::Register(1)}, 2);
 *   b.EmitRet(2);
 *   b.EndFunction("main");
 *   ffi::Module exec = b.Get();   // validated; ValueError on any inconsistency
 */
#ifndef TVM_RUNTIME_VM_BUILDER_H_
#define TVM_RUNTIME_VM_BUILDER_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/vm/bytecode.h>
#include <tvm/runtime/vm/vm.h>

#include <string>
#include <vector>

namespace tvm {
namespace runtime {
namespace vm {

class ExecBuilder {
 public:
  ExecBuilder() : handle_(TVM_VM_GLOBAL("vm.builder.Create")().cast<ffi::ObjectRef>()) {}

  /*! \brief Starts a bytecode function; its arguments arrive in registers 0..num_inputs-1. */
  void EmitFunction(const std::string& name, int64_t num_inputs,
                    const std::vector<std::string>& param_names = {}) {
    ffi::Array<ffi::String> names;
    for (const std::string& p : param_names) names.push_back(p);
    TVM_VM_GLOBAL("vm.builder.EmitFunction")(handle_, name, num_inputs, names);
  }
  void EndFunction(const std::string& name) {
    TVM_VM_GLOBAL("vm.builder.EndFunction")(handle_, name);
  }

  /*!
   * \brief Calls `func` (a bytecode function of this executable, else a kernel/builtin found
   * at VM init) and writes the result to `dst`. Returns the instruction's index in the function.
   */
  Index EmitCall(const std::string& func, const std::vector<Arg>& args,
                 RegName dst = kVoidRegister) {
    ffi::Array<int64_t> words;
    for (const Arg& a : args) words.push_back(a.word());
    return TVM_VM_GLOBAL("vm.builder.EmitCall")(handle_, func, words, dst).cast<Index>();
  }
  Index EmitRet(RegName result) {
    return TVM_VM_GLOBAL("vm.builder.EmitRet")(handle_, result).cast<Index>();
  }
  Index EmitGoto(Index pc_offset) {
    return TVM_VM_GLOBAL("vm.builder.EmitGoto")(handle_, pc_offset).cast<Index>();
  }
  Index EmitIf(RegName cond, Index false_offset) {
    return TVM_VM_GLOBAL("vm.builder.EmitIf")(handle_, cond, false_offset).cast<Index>();
  }
  /*! \brief Rewrites the offset of an earlier Goto/If (for forward jumps). */
  void PatchJump(Index instr, Index offset) {
    TVM_VM_GLOBAL("vm.builder.PatchJump")(handle_, instr, offset);
  }
  Index NumInstructions() const {
    return TVM_VM_GLOBAL("vm.builder.NumInstructions")(handle_).cast<Index>();
  }

  /*! \brief Adds a constant and returns the operand that reads it. */
  Arg ConvertConstant(const ffi::Any& value) {
    return Arg::ConstIdx(TVM_VM_GLOBAL("vm.builder.ConvertConstant")(handle_, value).cast<Index>());
  }
  /*! \brief The operand passing function `name` as a value. */
  Arg Func(const std::string& name) {
    return Arg::FuncIdx(TVM_VM_GLOBAL("vm.builder.FuncIndex")(handle_, name).cast<Index>());
  }
  /*! \brief The executable built so far (a module of kind "relax.VMExecutable"). */
  ffi::Module Get() const { return TVM_VM_GLOBAL("vm.builder.Get")(handle_).cast<ffi::Module>(); }
  const ffi::ObjectRef& handle() const { return handle_; }

 private:
  ffi::ObjectRef handle_;
};

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_VM_BUILDER_H_
