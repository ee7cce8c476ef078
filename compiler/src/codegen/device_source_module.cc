/*
 * A device module as the compiler leaves it when no runtime for its kind is loaded in this
 * process (e.g. compiling CUDA kernels on a machine built without libtvm_runtime_cuda): it
 * carries the serialized module (the bytes `ffi.Module.load_from_bytes.<kind>` reads) and the
 * source for inspection. It is binary-serializable, so export_library packs it, and a process
 * that has the runtime for the kind loads the real module from the library. Its functions
 * exist but raise, naming the missing runtime. (TVM's DeviceSourceModule plays this role.)
 */
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>

#include <string>

#include "../support/registry.h"

namespace tvm {
namespace {

using ffi::String;

class DeviceSourceModuleObj : public ffi::ModuleObj {
 public:
  DeviceSourceModuleObj(String kind, ffi::Bytes payload, String source, String source_format)
      : kind_(std::move(kind)), payload_(std::move(payload)), source_(std::move(source)),
        source_format_(std::move(source_format)) {}

  const char* kind() const override { return kind_.c_str(); }
  int GetPropertyMask() const override { return ffi::kModuleBinarySerializable; }
  ffi::Optional<ffi::Function> GetFunction(const String& name) override {
    std::string kind(kind_), fname(name);
    return ffi::Function::FromPacked([kind, fname](ffi::PackedArgs, ffi::Any*) {
      TVM_FFI_THROW(RuntimeError) << "cannot run " << kind << " function " << fname
                                  << ": no runtime for `" << kind << "` modules is loaded in this "
                                  << "process (libtvm_runtime_" << kind << ".so registers "
                                  << "ffi.Module.load_from_bytes." << kind << ")";
    });
  }
  using ffi::ModuleObj::GetFunction;
  ffi::Bytes SaveToBytes() const override { return payload_; }
  String InspectSource(const String& format) const override {
    std::string f(format);
    return f.empty() || f == std::string(source_format_) ? source_ : String();
  }

 private:
  String kind_;
  ffi::Bytes payload_;
  String source_;
  String source_format_;
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("codegen.DeviceSourceModuleCreate",
                         [](String kind, ffi::Bytes payload, String source, String source_format) {
                           return ffi::Module(ffi::make_object<DeviceSourceModuleObj>(kind, payload, source,
                                                                                      source_format));
                         });
}

}  // namespace tvm
