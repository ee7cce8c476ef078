/*
 * The VM executable: a function table, a constant pool and an instruction stream. It is a
 * module of kind "relax.VMExecutable" so that it can sit in an import tree (one .so carries
 * kernels and bytecode) and be saved/loaded like any other module. It is immutable once built;
 * any number of VirtualMachines may share it.
 */
#ifndef TVM_RUNTIME_SRC_VM_EXECUTABLE_H_
#define TVM_RUNTIME_SRC_VM_EXECUTABLE_H_

#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/vm/bytecode.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace tvm {
namespace runtime {
namespace vm {

/*! \brief One function-table entry. */
struct VMFuncInfo {
  FuncKind kind = FuncKind::kPacked;
  std::string name;
  /*! \brief Arity; -1 for a packed function whose arity is unknown (variadic). */
  Index num_args = -1;
  Index register_file_size = 0;
  /*! \brief Instruction range [start_instr, end_instr) (bytecode only; 0, 0 for packed). */
  Index start_instr = 0;
  Index end_instr = 0;
  /*! \brief Empty, or one name per argument (bytecode only). */
  std::vector<std::string> param_names;
  /*! \brief Derived on validation: the widest Call in this function (sizes the arg buffer). */
  Index max_call_args = 0;
};

class VMExecutableObj : public ffi::ModuleObj {
 public:
  std::vector<VMFuncInfo> func_table;
  std::unordered_map<std::string, Index> func_map;
  /*! \brief None, bool, int, float, str, DataType, Device, Shape, host Tensor, Array thereof. */
  std::vector<ffi::Any> constants;
  /*! \brief Start word of each instruction in instr_data. */
  std::vector<Index> instr_offset;
  std::vector<ExecWord> instr_data;

  const char* kind() const final { return kExecutableKind; }
  int GetPropertyMask() const final {
    return ffi::kModuleBinarySerializable | ffi::kModuleRunnable;
  }
  /*! \brief Introspection and VM creation: see docs/vm.md ("Executable module functions"). */
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final;
  using ffi::ModuleObj::GetFunction;
  ffi::Bytes SaveToBytes() const final;

  /*!
   * \brief Checks every index, range, register and jump target and fills func_map and
   * max_call_args; ValueError on the first violation. After this the interpreter can decode
   * any instruction without bounds checks.
   */
  void Validate();
  /*! \brief Readable listing of functions, constants and code. */
  std::string AsText() const;
  std::string Stats() const;
  /*! \brief Why instruction `pc` of `f` is invalid, or "" (Validate's per-instruction rule). */
  std::string CheckInstruction(const VMFuncInfo& f, Index pc) const;
  Index num_instructions() const { return static_cast<Index>(instr_offset.size()); }
};

/*! \brief The executable behind a module; TypeError when it is another kind. */
const VMExecutableObj* AsExecutable(const ffi::Module& mod);

/*! \brief Parses serialized bytes; ValueError on any malformation (never a crash). */
ffi::Module LoadExecutableFromBytes(const char* data, size_t size);

/*! \brief Short text of a constant for listings and errors. */
std::string ConstantToText(const ffi::Any& value);
/*! \brief "float32" etc. */
std::string DTypeToString(DLDataType dtype);

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_VM_EXECUTABLE_H_
