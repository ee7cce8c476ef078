/*
 * Executable validation (the single gate for both builder output and loaded bytes),
 * listings, and the executable's module functions.
 */
#include "executable.h"

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>

#include <sstream>

#include "interpreter.h"

namespace tvm {
namespace runtime {
namespace vm {
namespace {

/*! \brief Words of the instruction starting at data[pos]; ValueError when it cannot be one. */
Index InstructionWords(const std::vector<ExecWord>& data, size_t pos) {
  size_t left = data.size() - pos;
  switch (static_cast<Opcode>(data[pos])) {
    case Opcode::kCall: {
      TVM_FFI_CHECK(left >= kCallHeaderWords, ValueError)
          << "invalid VM executable: Call at word " << pos << " is truncated";
      ExecWord nargs = data[pos + 3];
      TVM_FFI_CHECK(nargs >= 0 && nargs <= kMaxCallArgs &&
                        static_cast<size_t>(nargs) <= left - kCallHeaderWords,
                    ValueError)
          << "invalid VM executable: Call at word " << pos << " has a bad argument count "
          << nargs;
      return kCallHeaderWords + nargs;
    }
    case Opcode::kRet:
    case Opcode::kGoto:
    case Opcode::kIf: {
      Index n = data[pos] == static_cast<ExecWord>(Opcode::kIf) ? kIfWords : kRetWords;
      TVM_FFI_CHECK(left >= static_cast<size_t>(n), ValueError)
          << "invalid VM executable: instruction at word " << pos << " is truncated";
      return n;
    }
    default:
      TVM_FFI_THROW(ValueError) << "invalid VM executable: unknown opcode " << data[pos]
                                << " at word " << pos;
  }
}

/*! \brief Checks one function's entry (not its code). */
void CheckFuncInfo(const VMFuncInfo& f, Index num_instructions) {
  TVM_FFI_CHECK(!f.name.empty(), ValueError) << "invalid VM executable: empty function name";
  const std::string where = "invalid VM executable: function `" + f.name + "`: ";
  if (f.kind == FuncKind::kPacked) {
    TVM_FFI_CHECK(f.num_args >= -1 && f.num_args <= kMaxCallArgs, ValueError)
        << where << "bad arity " << f.num_args;
    TVM_FFI_CHECK(f.register_file_size == 0 && f.start_instr == 0 && f.end_instr == 0 &&
                      f.param_names.empty(),
                  ValueError)
        << where << "a packed function has no code, registers or parameter names";
    return;
  }
  TVM_FFI_CHECK(f.kind == FuncKind::kBytecode, ValueError)
      << where << "unknown function kind " << static_cast<int64_t>(f.kind);
  TVM_FFI_CHECK(f.num_args >= 0 && f.num_args <= kMaxCallArgs, ValueError)
      << where << "bad arity " << f.num_args;
  TVM_FFI_CHECK(f.register_file_size >= f.num_args && f.register_file_size <= kMaxRegisterFileSize,
                ValueError)
      << where << "register file size " << f.register_file_size << " must be in ["
      << f.num_args << ", " << kMaxRegisterFileSize << "]";
  TVM_FFI_CHECK(f.start_instr >= 0 && f.start_instr < f.end_instr &&
                    f.end_instr <= num_instructions,
                ValueError)
      << where << "instruction range [" << f.start_instr << ", " << f.end_instr
      << ") is not a non-empty part of [0, " << num_instructions << ")";
  TVM_FFI_CHECK(f.param_names.empty() || static_cast<Index>(f.param_names.size()) == f.num_args,
                ValueError)
      << where << f.param_names.size() << " parameter names for " << f.num_args << " arguments";
}

}  // namespace

void VMExecutableObj::Validate() {
  // 1. The word stream splits into whole instructions; derive their offsets.
  instr_offset.clear();
  for (size_t pos = 0; pos < instr_data.size();) {
    instr_offset.push_back(static_cast<Index>(pos));
    pos += static_cast<size_t>(InstructionWords(instr_data, pos));
  }
  const Index num_instr = num_instructions();
  const Index num_funcs = static_cast<Index>(func_table.size());
  // 2. Function entries and unique names.
  func_map.clear();
  for (Index i = 0; i < num_funcs; ++i) {
    CheckFuncInfo(func_table[i], num_instr);
    TVM_FFI_CHECK(func_map.emplace(func_table[i].name, i).second, ValueError)
        << "invalid VM executable: duplicate function name `" << func_table[i].name << "`";
  }
  // 3. Every instruction of every bytecode function, against that function's frame.
  for (VMFuncInfo& f : func_table) {
    if (f.kind != FuncKind::kBytecode) continue;
    f.max_call_args = 0;
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      std::string error = CheckInstruction(f, pc);
      if (!error.empty()) {
        TVM_FFI_THROW(ValueError) << "invalid VM executable: function `" << f.name
                                  << "` instruction " << pc - f.start_instr << ": " << error;
      }
      const ExecWord* w = instr_data.data() + instr_offset[pc];
      if (w[0] == static_cast<ExecWord>(Opcode::kCall)) {
        f.max_call_args = std::max<Index>(f.max_call_args, w[3]);
      }
    }
  }
}

std::string VMExecutableObj::CheckInstruction(const VMFuncInfo& f, Index pc) const {
  const ExecWord* w = instr_data.data() + instr_offset[pc];
  const Index regs = f.register_file_size;
  const Index num_funcs = static_cast<Index>(func_table.size());
  const Index num_consts = static_cast<Index>(constants.size());
  auto is_reg = [regs](RegName r) { return r >= 0 && r < regs; };
  // `offset` is untrusted: compare without forming pc + offset (no overflow).
  auto in_func = [&f, pc](ExecWord offset) {
    return offset >= f.start_instr - pc && offset < f.end_instr - pc;
  };
  // Messages are only formatted on failure; the success path allocates nothing.
  auto error = [](auto&&... parts) {
    std::ostringstream os;
    (os << ... << parts);
    return os.str();
  };
  switch (static_cast<Opcode>(w[0])) {
    case Opcode::kCall: {
      if (!is_reg(w[1]) && w[1] != kVoidRegister) {
        return error("destination register ", w[1], " out of range (", regs, " registers)");
      }
      if (w[2] < 0 || w[2] >= num_funcs) {
        return error("function index ", w[2], " out of range (", num_funcs, " functions)");
      }
      const VMFuncInfo& callee = func_table[w[2]];
      if (callee.num_args >= 0 && w[3] != callee.num_args) {
        return error("calls `", callee.name, "` with ", w[3], " arguments, it takes ",
                     callee.num_args);
      }
      if (pc + 1 >= f.end_instr) return error("execution falls off the end of the function");
      for (Index i = 0; i < w[3]; ++i) {
        Arg a(w[kCallHeaderWords + i]);
        int64_t v = a.value();
        bool ok = false;
        switch (a.raw_kind()) {
          case static_cast<int64_t>(ArgKind::kRegister):
            ok = is_reg(v) || v == kVoidRegister || v == kVMRegister;
            break;
          case static_cast<int64_t>(ArgKind::kImmediate):
            ok = true;
            break;
          case static_cast<int64_t>(ArgKind::kConstIdx):
            ok = v >= 0 && v < num_consts;
            break;
          case static_cast<int64_t>(ArgKind::kFuncIdx):
            ok = v >= 0 && v < num_funcs;
            break;
          default:
            break;
        }
        if (!ok) {
          return error("argument ", i, " (kind ", a.raw_kind(), ", value ", v, ") is invalid");
        }
      }
      return std::string();
    }
    case Opcode::kRet:
      if (!is_reg(w[1]) && w[1] != kVoidRegister) {
        return error("returned register ", w[1], " out of range");
      }
      return std::string();
    case Opcode::kGoto:
      if (!in_func(w[1])) return error("jump offset ", w[1], " leaves the function");
      return std::string();
    case Opcode::kIf:
      if (!is_reg(w[1])) return error("condition register ", w[1], " out of range");
      if (pc + 1 >= f.end_instr || !in_func(w[2])) {
        return error("branch (false offset ", w[2], ") leaves the function");
      }
      return std::string();
  }
  return error("unknown opcode ", w[0]);  // unreachable: the stream was split already
}

std::string ConstantToText(const ffi::Any& v) {
  std::ostringstream os;
  switch (v.type_index()) {
    case kTVMFFINone:
      return "None";
    case kTVMFFIBool:
      return v.raw()->v_int64 ? "True" : "False";
    case kTVMFFIInt:
      return std::to_string(v.raw()->v_int64);
    case kTVMFFIFloat:
      os << v.raw()->v_float64;
      return os.str();
    case kTVMFFIDataType:
      return "dtype(" + DTypeToString(v.raw()->v_dtype) + ")";
    case kTVMFFIDevice:
      os << "device(" << v.raw()->v_device.device_type << ", " << v.raw()->v_device.device_id
         << ")";
      return os.str();
    case kTVMFFISmallStr:
    case kTVMFFIStr: {
      std::string s = v.cast<std::string>();
      if (s.size() > 40) s = s.substr(0, 37) + "...";
      return "\"" + s + "\"";
    }
    case kTVMFFIShape: {
      ffi::Shape shape = v.cast<ffi::Shape>();
      os << "Shape(";
      for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
      os << ")";
      return os.str();
    }
    case kTVMFFITensor: {
      ffi::Tensor t = v.cast<ffi::Tensor>();
      os << "Tensor(" << DTypeToString(t.dtype()) << "[";
      for (int32_t i = 0; i < t.ndim(); ++i) os << (i ? ", " : "") << t.shape()[i];
      os << "])";
      return os.str();
    }
    case kTVMFFIArray: {
      ffi::Array<ffi::Any> arr = v.cast<ffi::Array<ffi::Any>>();
      os << "[";
      for (size_t i = 0; i < arr.size(); ++i) os << (i ? ", " : "") << ConstantToText(arr[i]);
      os << "]";
      return os.str();
    }
    default:
      return "<" + v.GetTypeKey() + ">";
  }
}

std::string DTypeToString(DLDataType dtype) {
  TVMFFIAny out;
  if (TVMFFIDataTypeToString(&dtype, &out) != 0) {
    ffi::details::MoveFromRaised();
    return "?";
  }
  return ffi::Any::FromOwnedRaw(out).cast<std::string>();
}

std::string VMExecutableObj::Stats() const {
  Index bytecode = 0;
  for (const VMFuncInfo& f : func_table) bytecode += f.kind == FuncKind::kBytecode;
  std::ostringstream os;
  os << func_table.size() << " functions (" << bytecode << " bytecode, "
     << func_table.size() - bytecode << " packed), " << constants.size() << " constants, "
     << num_instructions() << " instructions (" << instr_data.size() << " words)";
  return os.str();
}

std::string VMExecutableObj::AsText() const {
  std::ostringstream os;
  os << "; VM executable: " << Stats() << "\n";
  for (size_t i = 0; i < constants.size(); ++i) {
    os << "c[" << i << "] = " << ConstantToText(constants[i]) << "\n";
  }
  auto arg_text = [this](Arg a) {
    std::ostringstream s;
    switch (a.kind()) {
      case ArgKind::kRegister:
        if (a.value() == kVoidRegister) return std::string("%void");
        if (a.value() == kVMRegister) return std::string("%vm");
        s << "%" << a.value();
        break;
      case ArgKind::kImmediate:
        s << "i" << a.value();
        break;
      case ArgKind::kConstIdx:
        s << "c[" << a.value() << "]";
        break;
      case ArgKind::kFuncIdx:
        s << "@" << func_table[a.value()].name;
        break;
    }
    return s.str();
  };
  auto reg_text = [](RegName r) {
    return r == kVoidRegister ? std::string("%void") : "%" + std::to_string(r);
  };
  for (const VMFuncInfo& f : func_table) {
    if (f.kind == FuncKind::kPacked) {
      os << "extern @" << f.name << "\n";
      continue;
    }
    os << "\n@" << f.name << "(";
    for (Index i = 0; i < f.num_args; ++i) {
      os << (i ? ", " : "") << "%" << i;
      if (!f.param_names.empty()) os << ":" << f.param_names[i];
    }
    os << ")  ; registers " << f.register_file_size << "\n";
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      const ExecWord* w = instr_data.data() + instr_offset[pc];
      os << "  " << pc - f.start_instr << ": ";
      switch (static_cast<Opcode>(w[0])) {
        case Opcode::kCall:
          os << reg_text(w[1]) << " = call @" << func_table[w[2]].name << "(";
          for (Index i = 0; i < w[3]; ++i) {
            os << (i ? ", " : "") << arg_text(Arg(w[kCallHeaderWords + i]));
          }
          os << ")";
          break;
        case Opcode::kRet:
          os << "ret " << reg_text(w[1]);
          break;
        case Opcode::kGoto:
          os << "goto " << (w[1] >= 0 ? "+" : "") << w[1] << "  ; -> "
             << pc - f.start_instr + w[1];
          break;
        case Opcode::kIf:
          os << "if " << reg_text(w[1]) << " else " << (w[2] >= 0 ? "+" : "") << w[2]
             << "  ; -> " << pc - f.start_instr + w[2];
          break;
      }
      os << "\n";
    }
  }
  return os.str();
}

ffi::Optional<ffi::Function> VMExecutableObj::GetFunction(const ffi::String& name) {
  ffi::Module self(ffi::details::ObjectUnsafe::PtrFromUnowned<ffi::ModuleObj>(this));
  if (name == "as_text") {
    return ffi::Function::FromTyped([self]() { return AsExecutable(self)->AsText(); }, "as_text");
  }
  if (name == "stats") {
    return ffi::Function::FromTyped([self]() { return AsExecutable(self)->Stats(); }, "stats");
  }
  if (name == "has_function") {
    return ffi::Function::FromTyped(
        [self](const std::string& fname) {
          const VMExecutableObj* exec = AsExecutable(self);
          auto it = exec->func_map.find(fname);
          return it != exec->func_map.end() &&
                 exec->func_table[it->second].kind == FuncKind::kBytecode;
        },
        "has_function");
  }
  if (name == "function_names") {
    return ffi::Function::FromTyped(
        [self]() {
          ffi::Array<ffi::String> out;
          for (const VMFuncInfo& f : AsExecutable(self)->func_table) {
            if (f.kind == FuncKind::kBytecode) out.push_back(f.name);
          }
          return out;
        },
        "function_names");
  }
  if (name == "vm_load_executable") {
    return ffi::Function::FromTyped([self]() { return CreateVirtualMachine(self); },
                                    "vm_load_executable");
  }
  return std::nullopt;
}

const VMExecutableObj* AsExecutable(const ffi::Module& mod) {
  TVM_FFI_CHECK(mod.defined(), TypeError) << "expected a VM executable, got None";
  const auto* exec = dynamic_cast<const VMExecutableObj*>(mod.get());
  TVM_FFI_CHECK(exec != nullptr, TypeError)
      << "expected a module of kind `" << kExecutableKind << "`, got `" << mod->kind() << "`";
  return exec;
}

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
