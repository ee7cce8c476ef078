/*
 * ExecBuilderObj: assembles an executable function by function. Reached from every language
 * through the `vm.builder.*` globals (C++ callers outside the runtime use the inline wrapper
 * in <tvm/runtime/vm/builder.h>). Get() runs the same validation as loading bytes, so a bug
 * in a code generator surfaces as a ValueError at build time, not as a VM crash.
 */
#ifndef TVM_RUNTIME_SRC_VM_BUILDER_H_
#define TVM_RUNTIME_SRC_VM_BUILDER_H_

#include <tvm/runtime/vm/bytecode.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "executable.h"

namespace tvm {
namespace runtime {
namespace vm {

class ExecBuilderObj : public ffi::Object {
 public:
  ExecBuilderObj();

  /*!
   * \brief Index of function `name`; an unknown name is declared as a packed function (a
   * kernel or builtin resolved at VM init). A later EmitFunction of that name turns the entry
   * into bytecode, so bytecode functions can be referenced before they are emitted.
   */
  Index FuncIndex(const std::string& name);
  /*! \brief Starts bytecode function `name` taking registers 0..num_inputs-1 as arguments. */
  void EmitFunction(const std::string& name, Index num_inputs, std::vector<std::string> params);
  /*! \brief Closes the open function; its register file covers every register it used. */
  void EndFunction(const std::string& name);
  /*! \brief Each Emit returns the instruction's index within the open function. */
  Index EmitCall(const std::string& func, const std::vector<ExecWord>& args, RegName dst);
  Index EmitRet(RegName result);
  Index EmitGoto(Index pc_offset);
  Index EmitIf(RegName cond, Index false_offset);
  /*! \brief Sets the offset of the Goto or If at `instr` of the open function (forward jumps). */
  void PatchJump(Index instr, Index offset);
  /*! \brief Instructions emitted so far in the open function (the index of the next one). */
  Index NumInstructions() const;
  /*! \brief Adds a constant (deduplicating scalars and strings); returns its pool index. */
  Index ConvertConstant(const ffi::Any& value);
  /*! \brief A validated copy of everything built so far (no function may be open). */
  ffi::Module Get() const;

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("runtime.vm.ExecBuilder", ExecBuilderObj, ffi::Object);

 private:
  VMFuncInfo& Current();
  void UseRegister(RegName reg, bool allow_void, bool allow_vm);
  Index Emit(std::initializer_list<ExecWord> words);
  ffi::Any NormalizeConstant(const ffi::Any& value, int depth);

  std::vector<VMFuncInfo> func_table_;
  std::unordered_map<std::string, Index> func_map_;
  std::vector<ffi::Any> constants_;
  std::unordered_map<ffi::Any, Index, ffi::AnyHash, ffi::AnyEqual> scalar_constants_;
  std::vector<Index> instr_offset_;
  std::vector<ExecWord> instr_data_;
  Index current_ = -1;
  RegName max_register_ = -1;
};

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_VM_BUILDER_H_
