/*
 * Modules: a unit of loaded code (a shared library, a system library, a VM executable, a CUDA
 * binary ...) that hands out Functions by name and may import other modules.
 *
 * All module kinds share type index 73. ModuleObj is C++ ABI shared with apache-tvm-ffi 0.1.x:
 * a module object made by one library is used through the vtable by code compiled against
 * either header set, and subclasses compiled against the reference headers link to our
 * libtvm_ffi. Hence, exactly as in the reference (tests/abi checks it):
 *
 *   layout   [vptr 8][TVMFFIObject 24][Array<Any> imports_ 8][Map<String, Function> cache 8]
 *            (the handle is the object address + 8: always convert with static_cast)
 *   vtable   kind, GetPropertyMask, GetFunction, ImplementsFunction, GetFunctionDoc,
 *            GetFunctionMetadata, WriteToFile, GetWriteFormats, SaveToBytes, InspectSource,
 *            ImportModule, ClearImports; NO virtual destructor (objects die through the
 *            per-type deleter make_object installs, which calls the concrete ~T()).
 *   exported from libtvm_ffi.so (ffi/tvm_ffi.lds): the vtable, typeinfo and typeinfo name of
 *            ModuleObj, the out-of-line methods below (ImportModule is the key function) and
 *            Module::LoadFromFile / Module::VisitContextSymbols.
 *
 * Name-lookup note: a subclass that overrides GetFunction(name) hides the two-argument
 * overload; call it through a Module or a ModuleObj* (or add `using ModuleObj::GetFunction`).
 */
#ifndef TVM_FFI_EXTRA_MODULE_H_
#define TVM_FFI_EXTRA_MODULE_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

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

/*! \brief Base of every module kind (C++ ABI: see the file comment). */
class TVM_FFI_DLL ModuleObj : public Object {
 public:
  /*! \brief Short name of the kind, e.g. "library"; also the load_from_bytes suffix. */
  virtual const char* kind() const = 0;
  virtual int GetPropertyMask() const { return 0; }
  /*! \brief This module's own function `name` (imports are not searched). */
  virtual Optional<Function> GetFunction(const String& name) = 0;
  virtual bool ImplementsFunction(const String& name) { return GetFunction(name).has_value(); }
  virtual Optional<String> GetFunctionDoc(const String&) { return std::nullopt; }
  virtual Optional<String> GetFunctionMetadata(const String&) { return std::nullopt; }
  virtual void WriteToFile(const String&, const String&) const {
    TVM_FFI_THROW(RuntimeError) << "Module of kind `" << kind() << "` cannot be written to a file";
  }
  virtual Array<String> GetWriteFormats() const { return Array<String>(); }
  /*! \brief Serialised form (only when kModuleBinarySerializable). */
  virtual Bytes SaveToBytes() const {
    TVM_FFI_THROW(RuntimeError) << "Module of kind `" << kind() << "` cannot be saved to bytes";
  }
  virtual String InspectSource(const String&) const { return String(); }
  /*! \brief Adds an import; RuntimeError when it would create a cycle. */
  virtual void ImportModule(const Module& other);
  virtual void ClearImports();

  /*! \brief Function `name`, then (when `query_imports`) the imports' depth-first. */
  Optional<Function> GetFunction(const String& name, bool query_imports);
  bool ImplementsFunction(const String& name, bool query_imports);
  Optional<String> GetFunctionDoc(const String& name, bool query_imports);
  Optional<String> GetFunctionMetadata(const String& name, bool query_imports);
  /*! \brief The imported modules (each element is a Module). */
  const Array<Any>& imports() const { return imports_; }

  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Module", ModuleObj, Object, kTVMFFIModule);

 protected:
  Array<Any> imports_;

 private:
  // Reserved for the reference's import lookup cache: present for the layout, always a valid
  // (empty) map so that the reference library's code may use it on our objects.
  Map<String, Function> import_lookup_cache_;
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

  /*! \brief Loads a module file through `ffi.Module.load_from_file.<ext>` (no imports). */
  TVM_FFI_DLL static Module LoadFromFile(const String& path);
  /*! \brief Calls `callback(name, value)` for every TVMFFIEnvModRegisterContextSymbol entry. */
  TVM_FFI_DLL static void VisitContextSymbols(
      const TypedFunction<void(String, void*)>& callback);

  Optional<Function> GetFunction(const String& name, bool query_imports = false) const {
    return get()->GetFunction(name, query_imports);
  }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_MODULE_H_
