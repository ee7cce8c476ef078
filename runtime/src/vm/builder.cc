/*
 * The builder and its `vm.builder.*` globals (the assembler API every binding wraps).
 */
#include "builder.h"

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/runtime/tensor.h>

#include "../support/registry.h"

namespace tvm {
namespace runtime {
namespace vm {

ExecBuilderObj::ExecBuilderObj() = default;

Index ExecBuilderObj::FuncIndex(const std::string& name) {
  TVM_FFI_CHECK(!name.empty(), ValueError) << "function names must not be empty";
  auto it = func_map_.find(name);
  if (it != func_map_.end()) return it->second;
  VMFuncInfo info;
  info.kind = FuncKind::kPacked;
  info.name = name;
  func_table_.push_back(std::move(info));
  Index index = static_cast<Index>(func_table_.size()) - 1;
  func_map_.emplace(name, index);
  return index;
}

void ExecBuilderObj::EmitFunction(const std::string& name, Index num_inputs,
                                  std::vector<std::string> params) {
  TVM_FFI_CHECK(current_ == -1, ValueError)
      << "EmitFunction(`" << name << "`): function `" << func_table_[current_].name
      << "` is still open (call EndFunction first)";
  TVM_FFI_CHECK(num_inputs >= 0 && num_inputs <= kMaxCallArgs, ValueError)
      << "EmitFunction(`" << name << "`): bad number of inputs " << num_inputs;
  TVM_FFI_CHECK(params.empty() || static_cast<Index>(params.size()) == num_inputs, ValueError)
      << "EmitFunction(`" << name << "`): " << params.size() << " parameter names for "
      << num_inputs << " inputs";
  Index index = FuncIndex(name);
  VMFuncInfo& f = func_table_[index];
  TVM_FFI_CHECK(f.kind == FuncKind::kPacked, ValueError)
      << "function `" << name << "` is already defined";
  f.kind = FuncKind::kBytecode;
  f.num_args = num_inputs;
  f.param_names = std::move(params);
  f.start_instr = static_cast<Index>(instr_offset_.size());
  f.end_instr = f.start_instr;
  current_ = index;
  max_register_ = num_inputs - 1;
}

void ExecBuilderObj::EndFunction(const std::string& name) {
  VMFuncInfo& f = Current();
  TVM_FFI_CHECK(f.name == name, ValueError)
      << "EndFunction(`" << name << "`) but the open function is `" << f.name << "`";
  f.end_instr = static_cast<Index>(instr_offset_.size());
  TVM_FFI_CHECK(f.end_instr > f.start_instr, ValueError)
      << "function `" << name << "` has no instructions";
  f.register_file_size = max_register_ + 1;
  TVM_FFI_CHECK(f.register_file_size <= kMaxRegisterFileSize, ValueError)
      << "function `" << name << "` uses " << f.register_file_size << " registers (limit "
      << kMaxRegisterFileSize << ")";
  current_ = -1;
}

VMFuncInfo& ExecBuilderObj::Current() {
  TVM_FFI_CHECK(current_ != -1, ValueError) << "no function is open (call EmitFunction first)";
  return func_table_[current_];
}

void ExecBuilderObj::UseRegister(RegName reg, bool allow_void, bool allow_vm) {
  if (reg >= 0 && reg < kMaxRegisterFileSize) {
    max_register_ = std::max(max_register_, reg);
    return;
  }
  TVM_FFI_CHECK((allow_void && reg == kVoidRegister) || (allow_vm && reg == kVMRegister),
                ValueError)
      << "invalid register " << reg << " in function `" << Current().name << "`";
}

Index ExecBuilderObj::Emit(std::initializer_list<ExecWord> words) {
  VMFuncInfo& f = Current();
  instr_offset_.push_back(static_cast<Index>(instr_data_.size()));
  instr_data_.insert(instr_data_.end(), words);
  return static_cast<Index>(instr_offset_.size()) - 1 - f.start_instr;
}

Index ExecBuilderObj::EmitCall(const std::string& func, const std::vector<ExecWord>& args,
                               RegName dst) {
  Current();
  TVM_FFI_CHECK(static_cast<Index>(args.size()) <= kMaxCallArgs, ValueError)
      << "call of `" << func << "` with " << args.size() << " arguments (limit " << kMaxCallArgs
      << ")";
  UseRegister(dst, /*allow_void=*/true, /*allow_vm=*/false);
  for (ExecWord word : args) {
    Arg a(word);
    int64_t v = a.value();
    switch (a.raw_kind()) {
      case static_cast<int64_t>(ArgKind::kRegister):
        UseRegister(v, true, true);
        break;
      case static_cast<int64_t>(ArgKind::kImmediate):
        break;
      case static_cast<int64_t>(ArgKind::kConstIdx):
        TVM_FFI_CHECK(v >= 0 && v < static_cast<Index>(constants_.size()), ValueError)
            << "call of `" << func << "`: constant index " << v << " out of range";
        break;
      case static_cast<int64_t>(ArgKind::kFuncIdx):
        TVM_FFI_CHECK(v >= 0 && v < static_cast<Index>(func_table_.size()), ValueError)
            << "call of `" << func << "`: function index " << v << " out of range";
        break;
      default:
        TVM_FFI_THROW(ValueError) << "call of `" << func << "`: unknown operand kind "
                                  << a.raw_kind();
    }
  }
  Index func_index = FuncIndex(func);
  Index at = Emit({static_cast<ExecWord>(Opcode::kCall), dst, func_index,
                   static_cast<ExecWord>(args.size())});
  instr_data_.insert(instr_data_.end(), args.begin(), args.end());
  return at;
}

Index ExecBuilderObj::EmitRet(RegName result) {
  Current();
  UseRegister(result, /*allow_void=*/true, /*allow_vm=*/false);
  return Emit({static_cast<ExecWord>(Opcode::kRet), result});
}

Index ExecBuilderObj::EmitGoto(Index pc_offset) {
  return Emit({static_cast<ExecWord>(Opcode::kGoto), pc_offset});
}

Index ExecBuilderObj::EmitIf(RegName cond, Index false_offset) {
  Current();
  UseRegister(cond, /*allow_void=*/false, /*allow_vm=*/false);
  return Emit({static_cast<ExecWord>(Opcode::kIf), cond, false_offset});
}

void ExecBuilderObj::PatchJump(Index instr, Index offset) {
  VMFuncInfo& f = Current();
  Index pc = f.start_instr + instr;
  TVM_FFI_CHECK(instr >= 0 && pc < static_cast<Index>(instr_offset_.size()), ValueError)
      << "PatchJump: instruction " << instr << " is not in function `" << f.name << "`";
  ExecWord* w = instr_data_.data() + instr_offset_[pc];
  if (w[0] == static_cast<ExecWord>(Opcode::kGoto)) {
    w[1] = offset;
  } else if (w[0] == static_cast<ExecWord>(Opcode::kIf)) {
    w[2] = offset;
  } else {
    TVM_FFI_THROW(ValueError) << "PatchJump: instruction " << instr << " of `" << f.name
                              << "` is not a Goto or If";
  }
}

Index ExecBuilderObj::NumInstructions() const {
  TVM_FFI_CHECK(current_ != -1, ValueError) << "no function is open";
  return static_cast<Index>(instr_offset_.size()) - func_table_[current_].start_instr;
}

ffi::Any ExecBuilderObj::NormalizeConstant(const ffi::Any& value, int depth) {
  TVM_FFI_CHECK(depth < kMaxConstantNesting, ValueError) << "constant nested too deeply";
  switch (value.type_index()) {
    case kTVMFFINone:
    case kTVMFFIBool:
    case kTVMFFIInt:
    case kTVMFFIFloat:
    case kTVMFFIDataType:
    case kTVMFFIDevice:
    case kTVMFFISmallStr:
    case kTVMFFIStr:
    case kTVMFFIShape:
      return value;
    case kTVMFFITensor: {
      // Constants are kept as compact host tensors: what the serializer writes and what the
      // VM copies to its device at init.
      ffi::Tensor t = value.cast<ffi::Tensor>();
      TVM_FFI_CHECK(t.ndim() <= kMaxTensorConstantNDim, ValueError)
          << "tensor constant with " << t.ndim() << " dimensions";
      if (t.device().device_type == kDLCPU && t.IsContiguous() && t.byte_offset() == 0) {
        return t;
      }
      std::vector<int64_t> shape(t.shape(), t.shape() + t.ndim());
      ffi::Tensor host = Empty(shape, t.dtype(), DLDevice{kDLCPU, 0});
      CopyFromTo(t.GetDLTensorPtr(), host.GetDLTensorPtr());
      ffi::Function::GetGlobalRequired("runtime.DeviceStreamSync")(t.device(),
                                                                    static_cast<void*>(nullptr));
      return host;
    }
    case kTVMFFIArray:
    case kTVMFFIList: {
      std::vector<ffi::Any> items;
      for (const ffi::Any& item : *ffi::details::SeqOf(value.raw())) {
        items.push_back(NormalizeConstant(item, depth + 1));
      }
      return ffi::Array<ffi::Any>(items);
    }
    default:
      TVM_FFI_THROW(TypeError) << "a VM constant cannot be a `" << value.GetTypeKey()
                               << "` (allowed: None, bool, int, float, str, DataType, Device, "
                                  "Shape, Tensor and arrays of these)";
  }
}

Index ExecBuilderObj::ConvertConstant(const ffi::Any& value) {
  bool scalar = value.type_index() < kTVMFFIStaticObjectBegin || value.type_index() == kTVMFFIStr;
  if (scalar) {
    auto it = scalar_constants_.find(value);
    if (it != scalar_constants_.end()) return it->second;
  }
  constants_.push_back(NormalizeConstant(value, 0));
  Index index = static_cast<Index>(constants_.size()) - 1;
  if (scalar) scalar_constants_.emplace(value, index);
  return index;
}

ffi::Module ExecBuilderObj::Get() const {
  TVM_FFI_CHECK(current_ == -1, ValueError)
      << "Get(): function `" << func_table_[current_].name << "` is still open";
  auto exec = ffi::make_object<VMExecutableObj>();
  exec->func_table = func_table_;
  exec->constants = constants_;
  exec->instr_data = instr_data_;
  exec->Validate();
  return ffi::Module(ffi::ObjectPtr<ffi::ModuleObj>(std::move(exec)));
}

namespace {

ExecBuilderObj* AsBuilder(const ffi::ObjectRef& ref) {
  const ExecBuilderObj* b = ref.as<ExecBuilderObj>();
  TVM_FFI_CHECK(b != nullptr, TypeError)
      << "expected a runtime.vm.ExecBuilder, got `" << ref.GetTypeKey() << "`";
  // Builders are mutable objects; every reference may emit.
  return const_cast<ExecBuilderObj*>(b);
}

std::vector<std::string> ToStrings(const std::optional<ffi::Array<ffi::String>>& names) {
  std::vector<std::string> out;
  if (names.has_value()) {
    for (const ffi::String& s : *names) out.emplace_back(s);
  }
  return out;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  using Ref = const ffi::ObjectRef&;
  RegisterRuntimeGlobal("vm.builder.Create",
                        []() { return ffi::ObjectRef(ffi::make_object<ExecBuilderObj>()); });
  RegisterRuntimeGlobal("vm.builder.EmitFunction",
                        [](Ref b, const std::string& name, int64_t num_inputs,
                           std::optional<ffi::Array<ffi::String>> params) {
                          AsBuilder(b)->EmitFunction(name, num_inputs, ToStrings(params));
                        });
  RegisterRuntimeGlobal("vm.builder.EndFunction", [](Ref b, const std::string& name) {
    AsBuilder(b)->EndFunction(name);
  });
  RegisterRuntimeGlobal("vm.builder.FuncIndex", [](Ref b, const std::string& name) {
    return AsBuilder(b)->FuncIndex(name);
  });
  RegisterRuntimeGlobal("vm.builder.EmitCall", [](Ref b, const std::string& func,
                                                  const ffi::Array<int64_t>& args, int64_t dst) {
    return AsBuilder(b)->EmitCall(func, std::vector<ExecWord>(args.begin(), args.end()), dst);
  });
  RegisterRuntimeGlobal("vm.builder.EmitRet",
                        [](Ref b, int64_t reg) { return AsBuilder(b)->EmitRet(reg); });
  RegisterRuntimeGlobal("vm.builder.EmitGoto",
                        [](Ref b, int64_t offset) { return AsBuilder(b)->EmitGoto(offset); });
  RegisterRuntimeGlobal("vm.builder.EmitIf", [](Ref b, int64_t cond, int64_t false_offset) {
    return AsBuilder(b)->EmitIf(cond, false_offset);
  });
  RegisterRuntimeGlobal("vm.builder.PatchJump", [](Ref b, int64_t instr, int64_t offset) {
    AsBuilder(b)->PatchJump(instr, offset);
  });
  RegisterRuntimeGlobal("vm.builder.NumInstructions",
                        [](Ref b) { return AsBuilder(b)->NumInstructions(); });
  RegisterRuntimeGlobal("vm.builder.ConvertConstant", [](Ref b, ffi::Any value) {
    return AsBuilder(b)->ConvertConstant(value);
  });
  RegisterRuntimeGlobal("vm.builder.Get", [](Ref b) { return AsBuilder(b)->Get(); });
  // Operand encoding, so bindings need not replicate the bit layout (docs/vm.md has it too).
  RegisterRuntimeGlobal("vm.builder.Arg", [](int64_t kind, int64_t value) {
    TVM_FFI_CHECK(kind >= 0 && kind <= 3, ValueError) << "operand kind must be 0..3, got " << kind;
    return Arg::Make(static_cast<ArgKind>(kind), value).word();
  });
}

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
