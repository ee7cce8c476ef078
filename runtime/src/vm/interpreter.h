/*
 * The interpreter: a module of kind "relax.VirtualMachine" that runs an executable's bytecode
 * functions on a set of devices. One VM serves one thread at a time (its frame stack is
 * shared by nested calls); create one VM per thread, all sharing the executable.
 */
#ifndef TVM_RUNTIME_SRC_VM_INTERPRETER_H_
#define TVM_RUNTIME_SRC_VM_INTERPRETER_H_

#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/vm/bytecode.h>

#include <memory>
#include <vector>

#include "../memory/allocator.h"
#include "executable.h"

namespace tvm {
namespace runtime {
namespace vm {

/*! \brief Activation record of a bytecode function (recycled between calls). */
struct Frame {
  Index func_index = 0;
  /*! \brief Where the caller resumes, and the caller's register receiving the result. */
  Index return_pc = 0;
  RegName caller_dst = kVoidRegister;
  /*! \brief Registers of the running function (regs may be longer, the rest are None). */
  Index num_regs = 0;
  std::vector<ffi::Any> regs;
  /*! \brief Argument views of the Call being executed (sized to the function's widest Call). */
  std::vector<ffi::AnyView> args;
  /*! \brief Closures made for FuncIdx operands naming bytecode functions, alive for one Call. */
  std::vector<ffi::Any> temps;
};

class VirtualMachineObj : public ffi::ModuleObj {
 public:
  explicit VirtualMachineObj(ffi::Module exec);
  const char* kind() const final { return kVirtualMachineKind; }
  int GetPropertyMask() const final { return ffi::kModuleRunnable; }
  /*! \brief Control functions (see docs/vm.md) or a callable per bytecode function. */
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final;
  using ffi::ModuleObj::GetFunction;

  /*!
   * \brief Chooses devices and allocators and resolves every packed function once. The last
   * device is the host; a CPU device is appended when the given last one is not a CPU.
   */
  void Init(std::vector<DLDevice> devices, std::vector<memory::AllocatorKind> kinds);
  /*! \brief Runs bytecode function `func_index`; TypeError on a wrong argument count. */
  ffi::Any Invoke(Index func_index, const ffi::AnyView* args, int32_t num_args);

  const VMExecutableObj* exec() const { return exec_; }
  /*! \brief Device `index` of Init's list; -1 is the host (the last one). */
  DLDevice device(Index index) const { return devices_[DeviceSlot(index)]; }
  memory::Allocator* allocator(Index index) const { return allocators_[DeviceSlot(index)]; }
  /*! \brief The allocator of `dev` if the VM uses it, else a pooled one for `dev`. */
  memory::Allocator* AllocatorFor(DLDevice dev) const;

 private:
  size_t DeviceSlot(Index index) const;
  void CheckInitialized() const;
  Frame* PushFrame(Index func_index, Index return_pc, RegName caller_dst);
  void PopFrame();
  [[noreturn]] TVM_FFI_NO_INLINE void ThrowStackOverflow(const VMFuncInfo& f) const;
  /*! \brief Executes from `pc` in the top frame until the frame at `base` returns. */
  ffi::Any RunLoop(Index pc, size_t base);
  /*! \brief Appends the VM frames above `base` to the error's backtrace, then pops them. */
  void UnwindWithError(const ffi::Error& err, Index pc, size_t base);
  ffi::Function MakeClosure(Index func_index) const;
  /*! \brief The "profile" control function: runs `fname(*args)` timing every packed call
   * (each call between two syncs of the VM's non-CPU devices, so a kernel launched on a GPU
   * stream is timed to its end). */
  ffi::Any Profile(ffi::PackedArgs args);
  /*! \brief Waits for the default stream of every non-CPU device of this VM (profiling). */
  void SyncDevices() const;

  ffi::Module exec_ref_;
  const VMExecutableObj* exec_;
  bool initialized_ = false;
  std::vector<DLDevice> devices_;
  std::vector<memory::Allocator*> allocators_;
  /*! \brief Resolved packed functions (null for bytecode entries), indexed like func_table. */
  std::vector<ffi::Function> func_pool_;
  std::vector<ffi::Any> constants_;
  /*! \brief frames_[0, depth_) are live; the rest are kept for reuse. */
  std::vector<std::unique_ptr<Frame>> frames_;
  size_t depth_ = 0;
  /*! \brief Registers held by live frames (bounds the memory of deep recursion). */
  Index live_registers_ = 0;
  /*! \brief Invoke() activations on the C++ stack (a callee re-entering the VM nests them). */
  int native_depth_ = 0;
  /*! \brief The value the kVMRegister operand reads: a borrowed view of this module. */
  TVMFFIAny self_view_;
  /*! \brief Per func_table entry while Profile runs: packed calls made and their time. Null
   *  otherwise (the call loop then pays one predictable branch per call). */
  struct CallTime {
    int64_t calls = 0;
    int64_t nanos = 0;
  };
  std::vector<CallTime>* profile_ = nullptr;
};

/*! \brief An uninitialised VM over `exec` (a VMExecutable module). */
ffi::Module CreateVirtualMachine(const ffi::Module& exec);
/*! \brief The VM behind a module; TypeError when it is another kind. */
VirtualMachineObj* AsVirtualMachine(const ffi::Module& mod);

/*!
 * \brief Limits of one VM's call stack. Bytecode-to-bytecode calls use no C++ stack; calls
 * that re-enter the VM through a packed function (invoke_closure, a kernel calling back) do,
 * so they get a much smaller limit: overflowing it is a RuntimeError, not a stack overflow.
 */
constexpr size_t kMaxCallDepth = 8192;
constexpr Index kMaxLiveRegisters = Index{1} << 22;
constexpr int kMaxNativeDepth = 128;

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_VM_INTERPRETER_H_
