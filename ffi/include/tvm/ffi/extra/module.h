/*
 * Modules: a unit of loaded code (a shared library, a system library, a VM executable, a CUDA
 * binary ...) that hands out Functions by name and may import other modules.
 *
 * All module kinds share type index 73. ModuleObj has virtual functions, so its vptr sits in
 * front of the object header; always convert with static_cast.
 */
#ifndef TVM_FFI_EXTRA_MODULE_H_
#define TVM_FFI_EXTRA_MODULE_H_

#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace tvm {
namespace ffi {

class Module;

/*! \brief Bits of ModuleObj::GetPropertyMask. */
enum ModulePropertyMask : int {
  /*! SaveToBytes works and `ffi.Module.load_from_bytes.<kind>` can load the result. */
  kModuleBinarySerializable = 0b001,
  /*! GetFunction hands out functions that can run in this process. */
  kModuleRunnable = 0b010,
  /*! The module can be exported into a shared library by a compiler. */
  kModuleCompilationExportable = 0b100,
};

/*! \brief Base of every module kind. */
class ModuleObj : public Object {
 public:
  virtual ~ModuleObj() = default;
  /*! \brief Short name of the kind, e.g. "library"; also the load_from_bytes suffix. */
  virtual const char* kind() const = 0;
  virtual int GetPropertyMask() const { return 0; }
  /*! \brief This module's own function `name` (imports are not searched). */
  virtual std::optional<Function> GetFunction(const String& name) const = 0;
  virtual std::optional<String> GetFunctionMetadata(const String&) const { return std::nullopt; }
  virtual std::optional<String> GetFunctionDoc(const String&) const { return std::nullopt; }
  /*! \brief Serialised form (only when kModuleBinarySerializable). */
  virtual Bytes SaveToBytes() const {
    TVM_FFI_THROW(RuntimeError) << "Module of kind `" << kind() << "` cannot be saved to bytes";
  }
  virtual void WriteToFile(const String&, const String&) const {
    TVM_FFI_THROW(RuntimeError) << "Module of kind `" << kind() << "` cannot be written to a file";
  }
  virtual std::vector<String> GetWriteFormats() const { return {}; }
  virtual String InspectSource(const String&) const { return String(); }

  /*! \brief Function `name`, searching imports depth-first when `query_imports`. */
  std::optional<Function> GetFunction(const String& name, bool query_imports) const;
  /*! \brief Adds an import; RuntimeError when it would create a cycle. */
  void ImportModule(const Module& other);
  void ClearImports() { imports_.clear(); }
  const std::vector<Module>& imports() const { return imports_; }

  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Module", ModuleObj, Object, kTVMFFIModule);

 protected:
  std::vector<Module> imports_;
};

/*! \brief A reference to a module. */
class Module : public ObjectRef {
 public:
  // A module reference gives mutable access (imports can be added through any reference).
  Module() = default;
  explicit Module(ObjectPtr<ModuleObj> n) : ObjectRef(std::move(n)) {}
  explicit Module(details::UnsafeInit tag) : ObjectRef(tag) {}
  ModuleObj* operator->() const { return get(); }
  ModuleObj* get() const { return static_cast<ModuleObj*>(get_mutable()); }
  using ContainerType = ModuleObj;
  static constexpr bool _type_is_nullable = true;

  /*! \brief Loads a module file through `ffi.Module.load_from_file.<ext>`. */
  static Module LoadFromFile(const String& path) {
    Any mod = Function::GetGlobalRequired("ffi.ModuleLoadFromFile")(path);
    return mod.cast<Module>();
  }
  std::optional<Function> GetFunction(const String& name, bool query_imports = false) const {
    return get()->GetFunction(name, query_imports);
  }
};

inline std::optional<Function> ModuleObj::GetFunction(const String& name, bool query_imports) const {
  std::optional<Function> f = GetFunction(name);
  if (f.has_value() || !query_imports) return f;
  for (const Module& m : imports_) {
    f = m->GetFunction(name, true);
    if (f.has_value()) return f;
  }
  return std::nullopt;
}

inline void ModuleObj::ImportModule(const Module& other) {
  TVM_FFI_CHECK(other.defined(), ValueError) << "cannot import a null module";
  // Reject cycles: `this` must not be reachable from `other`.
  std::vector<const ModuleObj*> stack{other.get()};
  std::unordered_set<const ModuleObj*> seen;
  while (!stack.empty()) {
    const ModuleObj* m = stack.back();
    stack.pop_back();
    if (m == this) TVM_FFI_THROW(RuntimeError) << "Cyclic dependency detected during module import";
    if (!seen.insert(m).second) continue;
    for (const Module& sub : m->imports_) stack.push_back(sub.get());
  }
  imports_.push_back(other);
}

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_MODULE_H_
