/*
 * The interpreter loop, frames, function resolution and the VM's module functions.
 *
 * The executable was validated when built or loaded (executable.cc), so the loop decodes
 * instructions without bounds checks: register, constant and function indices are in range,
 * jumps stay inside the function and no path falls off its end.
 */
#include "interpreter.h"

#include <tvm/ffi/container/array.h>
#include <tvm/runtime/device_api.h>
#include <tvm/runtime/tensor.h>

#include <chrono>
#include <string>

#include "../support/registry.h"
#include "storage.h"

namespace tvm {
namespace runtime {
namespace vm {
namespace {

memory::AllocatorKind ParseAllocatorKind(const ffi::AnyView& v) {
  if (std::optional<int64_t> k = v.as<int64_t>()) {
    TVM_FFI_CHECK(*k == 1 || *k == 2, ValueError)
        << "allocator kind must be 1 (naive) or 2 (pooled), got " << *k;
    return static_cast<memory::AllocatorKind>(*k);
  }
  if (std::optional<std::string> s = v.as<std::string>()) {
    if (*s == "naive") return memory::AllocatorKind::kNaive;
    if (*s == "pooled") return memory::AllocatorKind::kPooled;
  }
  TVM_FFI_THROW(ValueError) << "allocator kind must be 1/\"naive\" or 2/\"pooled\"";
}

/*! \brief Reads (device_type, device_id, allocator_kind) triples from args[first...]. */
void InitFromTriples(VirtualMachineObj* vm, ffi::PackedArgs args, int first) {
  int n = args.size() - first;
  TVM_FFI_CHECK(n > 0 && n % 3 == 0, TypeError)
      << "VM initialization takes (device_type, device_id, allocator_kind) triples, got " << n
      << " values";
  std::vector<DLDevice> devices;
  std::vector<memory::AllocatorKind> kinds;
  for (int i = first; i < args.size(); i += 3) {
    DLDevice dev;
    dev.device_type = static_cast<DLDeviceType>(args[i].cast<int32_t>());
    dev.device_id = args[i + 1].cast<int32_t>();
    devices.push_back(dev);
    kinds.push_back(ParseAllocatorKind(args[i + 2]));
  }
  vm->Init(std::move(devices), std::move(kinds));
}

}  // namespace

VirtualMachineObj::VirtualMachineObj(ffi::Module exec)
    : exec_ref_(std::move(exec)), exec_(AsExecutable(exec_ref_)) {
  // What kVMRegister operands read: this module, borrowed (the VM outlives its own calls).
  self_view_.type_index = kTVMFFIModule;
  self_view_.zero_padding = 0;
  self_view_.v_obj = static_cast<TVMFFIObject*>(ffi::details::ObjectUnsafe::ToHandle(this));
}

void VirtualMachineObj::Init(std::vector<DLDevice> devices,
                             std::vector<memory::AllocatorKind> kinds) {
  TVM_FFI_CHECK(depth_ == 0, RuntimeError) << "cannot re-initialize a VM while it is running";
  TVM_FFI_CHECK(!devices.empty() && devices.size() == kinds.size(), ValueError)
      << "a VM needs at least one device, each with an allocator kind";
  if (devices.back().device_type != kDLCPU) {
    // Shapes and host-side values live on the host, which is by convention the last device.
    devices.push_back(DLDevice{kDLCPU, 0});
    kinds.push_back(kinds.back());
  }
  std::vector<memory::Allocator*> allocators;
  for (size_t i = 0; i < devices.size(); ++i) {
    allocators.push_back(memory::GetAllocator(devices[i], kinds[i]));
  }
  // Resolve every packed function now, so a missing kernel fails here and calls are direct.
  std::vector<ffi::Function> pool(exec_->func_table.size());
  for (size_t i = 0; i < pool.size(); ++i) {
    const VMFuncInfo& f = exec_->func_table[i];
    if (f.kind != FuncKind::kPacked) continue;
    std::optional<ffi::Function> fn;
    for (const ffi::Any& imported : exec_->imports()) {
      fn = imported.cast<ffi::Module>()->GetFunction(f.name, /*query_imports=*/true);
      if (fn.has_value()) break;
    }
    if (!fn.has_value()) fn = ffi::Function::GetGlobal(f.name);
    TVM_FFI_CHECK(fn.has_value(), RuntimeError)
        << "VM: cannot find function `" << f.name
        << "` called by the executable, neither in its imported modules nor in the global "
           "registry (is the library providing it loaded?)";
    pool[i] = *fn;
  }
  // Tensor constants live on the host in the executable; give the VM copies on device 0.
  std::vector<ffi::Any> constants = exec_->constants;
  if (devices[0].device_type != kDLCPU) {
    for (ffi::Any& c : constants) {
      if (c.type_index() != kTVMFFITensor) continue;
      ffi::Tensor host = c.cast<ffi::Tensor>();
      std::vector<int64_t> shape(host.shape(), host.shape() + host.ndim());
      ffi::Tensor dev = AllocTensor(allocators[0], shape, host.dtype());
      CopyFromTo(host.GetDLTensorPtr(), dev.GetDLTensorPtr());
      c = dev;
    }
  }
  devices_ = std::move(devices);
  allocators_ = std::move(allocators);
  func_pool_ = std::move(pool);
  constants_ = std::move(constants);
  initialized_ = true;
}

size_t VirtualMachineObj::DeviceSlot(Index index) const {
  CheckInitialized();
  Index n = static_cast<Index>(devices_.size());
  if (index == -1) return static_cast<size_t>(n - 1);
  TVM_FFI_CHECK(index >= 0 && index < n, ValueError)
      << "device index " << index << " out of range: the VM has " << n << " devices";
  return static_cast<size_t>(index);
}

memory::Allocator* VirtualMachineObj::AllocatorFor(DLDevice dev) const {
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i].device_type == dev.device_type && devices_[i].device_id == dev.device_id) {
      return allocators_[i];
    }
  }
  return memory::GetAllocator(dev, memory::AllocatorKind::kPooled);
}

void VirtualMachineObj::CheckInitialized() const {
  TVM_FFI_CHECK(initialized_, RuntimeError)
      << "the VM is not initialized: call vm_initialization(device_type, device_id, "
         "allocator_kind, ...) first";
}

Frame* VirtualMachineObj::PushFrame(Index func_index, Index return_pc, RegName caller_dst) {
  const VMFuncInfo& f = exec_->func_table[func_index];
  if (TVM_FFI_UNLIKELY(depth_ >= kMaxCallDepth ||
                       live_registers_ + f.register_file_size > kMaxLiveRegisters)) {
    ThrowStackOverflow(f);
  }
  if (TVM_FFI_UNLIKELY(depth_ == frames_.size())) frames_.push_back(std::make_unique<Frame>());
  Frame* fr = frames_[depth_].get();
  fr->func_index = func_index;
  fr->return_pc = return_pc;
  fr->caller_dst = caller_dst;
  fr->num_regs = f.register_file_size;
  // Recycled frames keep their vectors; registers past the previous user's count are None.
  if (fr->regs.size() < static_cast<size_t>(f.register_file_size)) {
    fr->regs.resize(static_cast<size_t>(f.register_file_size));
  }
  if (fr->args.size() < static_cast<size_t>(f.max_call_args)) {
    fr->args.resize(static_cast<size_t>(f.max_call_args));
  }
  ++depth_;
  live_registers_ += f.register_file_size;
  return fr;
}

void VirtualMachineObj::ThrowStackOverflow(const VMFuncInfo& f) const {
  TVM_FFI_THROW(RuntimeError) << "VM call stack overflow calling `" << f.name << "` at depth "
                              << depth_ << " (unbounded recursion?)";
}

void VirtualMachineObj::PopFrame() {
  Frame* fr = frames_[depth_ - 1].get();
  --depth_;
  live_registers_ -= fr->num_regs;
  // Release values now: tensors go back to their allocator as soon as the call ends. Each
  // slot is reset before its old value is released, so a destructor sees a consistent frame.
  for (Index i = 0; i < fr->num_regs; ++i) {
    TVMFFIAny* slot = fr->regs[i].raw_mutable();
    TVMFFIAny old = *slot;
    ffi::details::InitNone(slot);
    ffi::details::DecRefIfObject(&old);
  }
  if (!fr->temps.empty()) fr->temps.clear();
}

ffi::Function VirtualMachineObj::MakeClosure(Index func_index) const {
  ffi::Module self(ffi::details::ObjectUnsafe::PtrFromUnowned<ffi::ModuleObj>(this));
  // `self` keeps the VM alive; the pointer saves a dynamic_cast on every call.
  VirtualMachineObj* vm = const_cast<VirtualMachineObj*>(this);
  return ffi::Function::FromPacked([self, vm, func_index](ffi::PackedArgs args, ffi::Any* rv) {
    *rv = vm->Invoke(func_index, args.data(), args.size());
  });
}

ffi::Any VirtualMachineObj::Invoke(Index func_index, const ffi::AnyView* args, int32_t num_args) {
  CheckInitialized();
  const VMFuncInfo& f = exec_->func_table[func_index];
  if (num_args != f.num_args) {
    std::string params;
    for (size_t i = 0; i < f.param_names.size(); ++i) params += (i ? ", " : "") + f.param_names[i];
    TVM_FFI_THROW(TypeError) << "VM function `" << f.name << "(" << params << ")` takes "
                             << f.num_args << " arguments but " << num_args << " were given";
  }
  TVM_FFI_CHECK(native_depth_ < kMaxNativeDepth, RuntimeError)
      << "VM re-entered " << native_depth_ << " times calling `" << f.name
      << "` (unbounded recursion through a packed function?)";
  struct NativeDepthGuard {
    int* depth;
    ~NativeDepthGuard() { --*depth; }
  } guard{&(++native_depth_)};
  size_t base = depth_;
  Frame* fr = PushFrame(func_index, -1, kVoidRegister);
  try {
    for (int32_t i = 0; i < num_args; ++i) fr->regs[i] = ffi::Any(args[i]);
  } catch (...) {
    PopFrame();
    throw;
  }
  return RunLoop(f.start_instr, base);
}

namespace {
/*!
 * \brief Moves the owned value `*value` into register `dst` (or drops it for kVoidRegister) and
 * releases the register's old value. Works on raw values: ffi::Any's move assignment is
 * several times slower in this loop.
 */
inline void StoreResult(Frame* fr, RegName dst, TVMFFIAny* value) {
  TVMFFIAny* slot = dst < kBeginSpecialReg ? fr->regs[dst].raw_mutable() : value;
  std::swap(*slot, *value);
  ffi::details::DecRefIfObject(value);
}
}  // namespace

ffi::Any VirtualMachineObj::RunLoop(Index pc, size_t base) {
  const ExecWord* code = exec_->instr_data.data();
  const Index* offsets = exec_->instr_offset.data();
  const ffi::Any* constants = constants_.data();
  const ffi::Function* pool = func_pool_.data();
  Frame* fr = frames_[depth_ - 1].get();
  try {
    while (true) {
      const ExecWord* w = code + offsets[pc];
      switch (static_cast<Opcode>(w[0])) {
        case Opcode::kCall: {
          const Index func_index = w[2];
          const int32_t num_args = static_cast<int32_t>(w[3]);
          ffi::AnyView* args = fr->args.data();
          for (int32_t i = 0; i < num_args; ++i) {
            Arg a(w[kCallHeaderWords + i]);
            const int64_t v = a.value();
            TVMFFIAny* out = args[i].raw_mutable();
            switch (a.kind()) {
              case ArgKind::kRegister:
                if (v < kBeginSpecialReg) {
                  *out = *fr->regs[v].raw();
                } else if (v == kVoidRegister) {
                  ffi::details::InitNone(out);
                } else {
                  *out = self_view_;
                }
                break;
              case ArgKind::kImmediate:
                out->type_index = kTVMFFIInt;
                out->zero_padding = 0;
                out->v_int64 = v;
                break;
              case ArgKind::kConstIdx:
                *out = *constants[v].raw();
                break;
              case ArgKind::kFuncIdx:
                if (pool[v].defined()) {
                  args[i] = pool[v];
                } else {
                  fr->temps.emplace_back(MakeClosure(v));
                  *out = *fr->temps.back().raw();
                }
                break;
            }
          }
          const ffi::Function& callee = pool[func_index];
          if (!callee.defined()) {
            // A bytecode callee runs in this loop: push its frame, no C++ recursion.
            Frame* next = PushFrame(func_index, pc + 1, w[1]);
            // The new frame's registers are None: copy straight into them.
            for (int32_t i = 0; i < num_args; ++i) {
              ffi::details::CopyViewToOwned(args[i].raw(), next->regs[i].raw_mutable());
            }
            fr->temps.clear();
            fr = next;
            pc = exec_->func_table[func_index].start_instr;
            break;
          }
          TVMFFIAny result;
          ffi::details::InitNone(&result);
          const ffi::FunctionObj* fobj = callee.get();
          std::chrono::steady_clock::time_point start;
          if (TVM_FFI_UNLIKELY(profile_ != nullptr)) {
            SyncDevices();  // earlier asynchronous work is not this call's
            start = std::chrono::steady_clock::now();
          }
          int rc = fobj->cell.safe_call(ffi::details::ObjectUnsafe::ToHandle(fobj),
                                        reinterpret_cast<const TVMFFIAny*>(args), num_args,
                                        &result);
          if (TVM_FFI_UNLIKELY(profile_ != nullptr)) {
            if (rc == 0) SyncDevices();  // a GPU kernel's time, not only its launch
            CallTime& t = (*profile_)[func_index];
            t.calls += 1;
            t.nanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
          }
          if (TVM_FFI_UNLIKELY(rc != 0)) throw ffi::details::MoveFromRaised();
          if (TVM_FFI_UNLIKELY(!fr->temps.empty())) fr->temps.clear();
          const RegName dst = w[1];
          StoreResult(fr, dst, &result);
          ++pc;
          break;
        }
        case Opcode::kRet: {
          TVMFFIAny result;
          ffi::details::InitNone(&result);
          if (w[1] != kVoidRegister) std::swap(result, *fr->regs[w[1]].raw_mutable());
          const Index return_pc = fr->return_pc;
          const RegName dst = fr->caller_dst;
          PopFrame();
          if (depth_ == base) return ffi::Any::FromOwnedRaw(result);
          fr = frames_[depth_ - 1].get();
          StoreResult(fr, dst, &result);
          pc = return_pc;
          break;
        }
        case Opcode::kGoto:
          pc += w[1];
          break;
        case Opcode::kIf: {
          const TVMFFIAny* cond = fr->regs[w[1]].raw();
          if (TVM_FFI_UNLIKELY(cond->type_index != kTVMFFIInt &&
                               cond->type_index != kTVMFFIBool)) {
            TVM_FFI_THROW(TypeError)
                << "If condition must be an int or bool, got `"
                << ffi::details::TypeIndexToKey(cond->type_index)
                << "` (convert it with vm.builtin.read_if_cond)";
          }
          pc += cond->v_int64 != 0 ? 1 : w[2];
          break;
        }
      }
    }
  } catch (const ffi::Error& err) {
    UnwindWithError(err, pc, base);
    throw;
  } catch (...) {
    while (depth_ > base) PopFrame();
    throw;
  }
}

void VirtualMachineObj::UnwindWithError(const ffi::Error& err, Index pc, size_t base) {
  // One traceback line per VM frame, innermost first (the order backtraces are stored in).
  std::string trace;
  while (depth_ > base) {
    Frame* fr = frames_[depth_ - 1].get();
    const VMFuncInfo& f = exec_->func_table[fr->func_index];
    std::string what;
    const ExecWord* w = exec_->instr_data.data() + exec_->instr_offset[pc];
    if (w[0] == static_cast<ExecWord>(Opcode::kCall)) {
      what = " (call @" + exec_->func_table[w[2]].name + ")";
    }
    trace += "  File \"<vm bytecode>\", line " + std::to_string(pc - f.start_instr) + ", in " +
             f.name + what + "\n";
    pc = fr->return_pc - 1;
    PopFrame();
  }
  err.UpdateBacktrace(trace, kTVMFFIBacktraceUpdateModeAppend);
}

void VirtualMachineObj::SyncDevices() const {
  for (const DLDevice& dev : devices_) {
    if (dev.device_type != kDLCPU) DeviceAPI::Get(dev)->StreamSync(dev, nullptr);
  }
}

ffi::Any VirtualMachineObj::Profile(ffi::PackedArgs args) {
  TVM_FFI_CHECK(args.size() >= 1, TypeError) << "profile(func_name, *args)";
  std::string fname = args[0].cast<std::string>();
  auto it = exec_->func_map.find(fname);
  TVM_FFI_CHECK(it != exec_->func_map.end() &&
                    exec_->func_table[it->second].kind == FuncKind::kBytecode,
                ValueError)
      << "the executable has no bytecode function `" << fname << "`";
  TVM_FFI_CHECK(profile_ == nullptr, RuntimeError) << "profile() is already running on this VM";
  std::vector<CallTime> times(exec_->func_table.size());
  profile_ = &times;
  struct Reset {
    std::vector<CallTime>** slot;
    ~Reset() { *slot = nullptr; }
  } reset{&profile_};
  auto start = std::chrono::steady_clock::now();
  Invoke(it->second, args.data() + 1, args.size() - 1);
  int64_t total = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  // [total_ns, name, calls, ns, name, calls, ns, ...]: packed functions that were called.
  ffi::Array<ffi::Any> out;
  out.push_back(total);
  for (size_t i = 0; i < times.size(); ++i) {
    if (times[i].calls == 0) continue;
    out.push_back(ffi::String(exec_->func_table[i].name));
    out.push_back(times[i].calls);
    out.push_back(times[i].nanos);
  }
  return out;
}

ffi::Optional<ffi::Function> VirtualMachineObj::GetFunction(const ffi::String& name) {
  ffi::Module self(ffi::details::ObjectUnsafe::PtrFromUnowned<ffi::ModuleObj>(this));
  if (name == "profile") {
    return ffi::Function::FromPacked([self](ffi::PackedArgs args, ffi::Any* rv) {
      *rv = AsVirtualMachine(self)->Profile(args);
    });
  }
  if (name == "vm_initialization") {
    return ffi::Function::FromPacked([self](ffi::PackedArgs args, ffi::Any*) {
      InitFromTriples(AsVirtualMachine(self), args, 0);
    });
  }
  auto lookup = [](const ffi::Module& mod, const std::string& fname) -> const VMFuncInfo& {
    const VMExecutableObj* exec = AsVirtualMachine(mod)->exec();
    auto it = exec->func_map.find(fname);
    TVM_FFI_CHECK(it != exec->func_map.end() &&
                      exec->func_table[it->second].kind == FuncKind::kBytecode,
                  ValueError)
        << "the executable has no bytecode function `" << fname << "`";
    return exec->func_table[it->second];
  };
  if (name == "get_function_arity") {
    return ffi::Function::FromTyped(
        [self, lookup](const std::string& fname) { return lookup(self, fname).num_args; },
        "get_function_arity");
  }
  if (name == "get_function_param_name") {
    return ffi::Function::FromTyped(
        [self, lookup](const std::string& fname, int64_t i) {
          const VMFuncInfo& f = lookup(self, fname);
          TVM_FFI_CHECK(i >= 0 && i < f.num_args, IndexError)
              << "`" << fname << "` has " << f.num_args << " parameters, not " << i + 1;
          return f.param_names.empty() ? "arg" + std::to_string(i) : f.param_names[i];
        },
        "get_function_param_name");
  }
  auto it = exec_->func_map.find(name);
  if (it == exec_->func_map.end() || exec_->func_table[it->second].kind != FuncKind::kBytecode) {
    return std::nullopt;
  }
  return MakeClosure(it->second);
}

ffi::Module CreateVirtualMachine(const ffi::Module& exec) {
  // Checked before construction: make_object does not free its memory if a constructor throws.
  AsExecutable(exec);
  return ffi::Module(ffi::ObjectPtr<ffi::ModuleObj>(ffi::make_object<VirtualMachineObj>(exec)));
}

VirtualMachineObj* AsVirtualMachine(const ffi::Module& mod) {
  TVM_FFI_CHECK(mod.defined(), TypeError) << "expected a VirtualMachine, got None";
  auto* vm = dynamic_cast<VirtualMachineObj*>(mod.get());
  TVM_FFI_CHECK(vm != nullptr, TypeError)
      << "expected a module of kind `" << kVirtualMachineKind << "`, got `" << mod->kind() << "`";
  return vm;
}

TVM_FFI_STATIC_INIT_BLOCK() {
  // vm.VirtualMachine(executable, device_type, device_id, allocator_kind, ...) -> Module
  RegisterRuntimePacked("vm.VirtualMachine", [](ffi::PackedArgs args, ffi::Any* rv) {
    TVM_FFI_CHECK(args.size() >= 1, TypeError)
        << "vm.VirtualMachine(executable, device_type, device_id, allocator_kind, ...)";
    ffi::Module vm = CreateVirtualMachine(args[0].cast<ffi::Module>());
    InitFromTriples(AsVirtualMachine(vm), args, 1);
    *rv = vm;
  });
}

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
