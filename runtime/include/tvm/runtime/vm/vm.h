/*
 * Loading, saving and running executables from C++ outside libtvm_runtime (a deployment
 * application, a test). Inline calls of the VM globals; see docs/vm.md for the full API.
 *
 *   ffi::Module exec = ffi::Module::LoadFromFile("model.so");   // kernels + bytecode
 *   VirtualMachine vm = VirtualMachine::Create(exec, DLDevice{kDLCPU, 0});
 *   ffi::Any out = vm["main"](x, w);
 */
#ifndef TVM_RUNTIME_VM_VM_H_
#define TVM_RUNTIME_VM_VM_H_

#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/vm/bytecode.h>

#include <string>

/*!
 * \brief The global `name` as a `const ffi::Function&`, looked up once per call site. Never
 * released: it stays valid while static destructors run at exit.
 */
#define TVM_VM_GLOBAL(name)                                                          \
  ([]() -> const ::tvm::ffi::Function& {                                             \
    static const ::tvm::ffi::Function* f =                                           \
        new ::tvm::ffi::Function(::tvm::ffi::Function::GetGlobalRequired(name));     \
    return *f;                                                                       \
  }())

namespace tvm {
namespace runtime {
namespace vm {

/*! \brief Parses serialized executable bytes; ValueError when they are malformed. */
inline ffi::Module LoadExecutable(const ffi::Bytes& bytes) {
  return TVM_VM_GLOBAL("ffi.Module.load_from_bytes.relax.VMExecutable")(bytes)
      .cast<ffi::Module>();
}

/*! \brief The serialized form of an executable. */
inline ffi::Bytes SaveExecutable(const ffi::Module& exec) {
  return TVM_VM_GLOBAL("ffi.ModuleSaveToBytes")(exec).cast<ffi::Bytes>();
}

/*! \brief A VM module ("relax.VirtualMachine"): bytecode functions by name. */
class VirtualMachine {
 public:
  explicit VirtualMachine(ffi::Module mod) : mod_(std::move(mod)) {}

  /*!
   * \brief A VM running `exec` on `device` (a host CPU device is added when `device` is not
   * one); every packed function is resolved now, RuntimeError naming any that is missing.
   */
  static VirtualMachine Create(const ffi::Module& exec, DLDevice device,
                               AllocatorKind kind = AllocatorKind::kPooled) {
    return VirtualMachine(TVM_VM_GLOBAL("vm.VirtualMachine")(
                              exec, static_cast<int64_t>(device.device_type),
                              static_cast<int64_t>(device.device_id), static_cast<int64_t>(kind))
                              .cast<ffi::Module>());
  }

  /*! \brief Bytecode function `name` as a callable; ValueError when there is none. */
  ffi::Function operator[](const std::string& name) const {
    std::optional<ffi::Function> f = mod_.GetFunction(name);
    TVM_FFI_CHECK(f.has_value(), ValueError) << "the VM has no function `" << name << "`";
    return *f;
  }
  const ffi::Module& module() const { return mod_; }

 private:
  ffi::Module mod_;
};

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_VM_VM_H_
