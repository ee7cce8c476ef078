/*
 * The module kind "llvm": what `target.build.llvm` returns (tvm.compile's host module).
 * It holds the object file llvmlite emitted for the target, the LLVM IR, and, when the target
 * is the host, the library loaded from that object, whose functions it hands out. Device
 * modules (later: CUDA) are imported into it, so one module is the result of a compile;
 * export_library writes the object ("o": WriteToFile) and packs the imports.
 * Built from Python (codegen.LLVMModuleCreate), since LLVM itself is llvmlite's.
 */
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>

#include <fstream>
#include <optional>
#include <string>

#include "../support/registry.h"

namespace tvm {
namespace {

using ffi::String;

class LLVMModuleObj : public ffi::ModuleObj {
 public:
  LLVMModuleObj(ffi::Bytes object, String ir, String triple, ffi::Optional<ffi::Module> lib)
      : object_(std::move(object)), ir_(std::move(ir)), triple_(std::move(triple)), lib_(std::move(lib)) {}

  const char* kind() const override { return "llvm"; }
  int GetPropertyMask() const override {
    return ffi::kModuleCompilationExportable | (lib_.has_value() ? ffi::kModuleRunnable : 0);
  }
  ffi::Optional<ffi::Function> GetFunction(const String& name) override {
    if (!lib_.has_value()) return std::nullopt;  // cross-compiled: nothing runs here
    return (*lib_)->GetFunction(name, false);
  }
  using ffi::ModuleObj::GetFunction;

  // The format: "o"/"obj" (the object file), "ll" (the optimised LLVM IR) or "s"/"asm" (the
  // target's assembly, emitted on demand by the Python backend: global
  // codegen.LLVMEmitAssembly(ir, triple)); "" means the file name's suffix, as TVM's
  // GetFileFormat. Works for every target, cross-compiled ones included.
  void WriteToFile(const String& file_name, const String& format) const override {
    std::string fmt(format), name(file_name);
    if (fmt.empty()) {
      size_t dot = name.rfind('.');
      fmt = dot == std::string::npos ? std::string() : name.substr(dot + 1);
    }
    if (fmt == "obj") fmt = "o";
    if (fmt == "asm") fmt = "s";
    if (fmt != "o" && fmt != "ll" && fmt != "s") {
      TVM_FFI_THROW(ValueError) << "llvm module: cannot write format '" << fmt
                                << "' (o, obj, ll, s, asm; or a file name ending in one)";
    }
    std::string text;
    if (fmt == "s") text = Assembly();
    std::ofstream out(name, std::ios::binary);
    if (!out) TVM_FFI_THROW(RuntimeError) << "llvm module: cannot open " << name;
    if (fmt == "ll") {
      out << std::string(ir_);
    } else if (fmt == "s") {
      out << text;
    } else {
      out.write(object_.data(), static_cast<std::streamsize>(object_.size()));
    }
    if (!out) TVM_FFI_THROW(RuntimeError) << "llvm module: writing " << name << " failed";
  }
  ffi::Array<String> GetWriteFormats() const override {
    return {String("o"), String("ll"), String("s")};
  }
  String InspectSource(const String& format) const override {
    std::string fmt(format);
    if (fmt == "asm" || fmt == "s") return Assembly();
    return ir_;
  }

  const String& triple() const { return triple_; }

 private:
  std::string Assembly() const {
    std::optional<ffi::Function> emit = ffi::Function::GetGlobal("codegen.LLVMEmitAssembly");
    if (!emit.has_value()) {
      TVM_FFI_THROW(RuntimeError) << "llvm module: assembly needs the Python backend "
                                  << "(tvm.target.llvm_backend registers codegen.LLVMEmitAssembly)";
    }
    return std::string((*emit)(ir_, triple_).cast<String>());
  }

 private:
  ffi::Bytes object_;
  String ir_;
  String triple_;
  ffi::Optional<ffi::Module> lib_;
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("codegen.LLVMModuleCreate", [](ffi::Bytes object, String ir, String triple,
                                                       ffi::Optional<ffi::Module> lib) {
    return ffi::Module(ffi::make_object<LLVMModuleObj>(object, ir, triple, lib));
  });
}

}  // namespace tvm
