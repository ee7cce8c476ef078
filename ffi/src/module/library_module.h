/*
 * Library modules: code living in a shared library (dlopen) or linked statically into the
 * process (the system library), found through `__tvm_ffi_<name>` symbols.
 */
#ifndef TVM_FFI_SRC_MODULE_LIBRARY_MODULE_H_
#define TVM_FFI_SRC_MODULE_LIBRARY_MODULE_H_

#include <tvm/ffi/extra/module.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tvm {
namespace ffi {
namespace internal {

/*! \brief Where a library module finds its symbols. */
class SymbolSource {
 public:
  virtual ~SymbolSource() = default;
  /*! \brief Address of `name`, or nullptr. */
  virtual void* Find(const std::string& name) const = 0;
};

/*! \brief A module over a SymbolSource; kind "library". */
class LibraryModuleObj : public ModuleObj {
 public:
  explicit LibraryModuleObj(std::shared_ptr<SymbolSource> source) : source_(std::move(source)) {}
  const char* kind() const override { return "library"; }
  int GetPropertyMask() const override { return kModuleBinarySerializable | kModuleRunnable; }
  Optional<Function> GetFunction(const String& name) override;
  Optional<String> GetFunctionMetadata(const String& name) override;
  Optional<String> GetFunctionDoc(const String& name) override;
  using ModuleObj::GetFunction;

  /*! \brief Lookup used by compiled code through TVMFFIEnvModLookupFromImports (cached). */
  const Function& LookupFromImports(const std::string& name);

 private:
  std::optional<String> CallStringSymbol(const std::string& symbol) const;
  std::shared_ptr<SymbolSource> source_;
  std::mutex cache_mutex_;
  std::unordered_map<std::string, Function> lookup_cache_;
};

/*!
 * \brief Builds the module tree of a loaded library: writes context symbols, reads
 * `__tvm_ffi__library_bin` (imports) and fills `__tvm_ffi__library_ctx`.
 */
Module CreateLibraryModule(std::shared_ptr<SymbolSource> source);

}  // namespace internal
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_SRC_MODULE_LIBRARY_MODULE_H_
