/*
 * The out-of-line members of ModuleObj, exported with their C++ names (ffi/tvm_ffi.lds) so
 * that module kinds compiled against either header set share one vtable and one copy of the
 * import logic. ImportModule is the key function: the vtable and typeinfo live here.
 */
#include <tvm/ffi/extra/module.h>

#include <unordered_set>
#include <vector>

namespace tvm {
namespace ffi {

Optional<Function> ModuleObj::GetFunction(const String& name, bool query_imports) {
  Optional<Function> f = GetFunction(name);
  if (f.has_value() || !query_imports) return f;
  for (const Any& imported : imports_) {
    f = imported.cast<Module>()->GetFunction(name, true);
    if (f.has_value()) return f;
  }
  return std::nullopt;
}

bool ModuleObj::ImplementsFunction(const String& name, bool query_imports) {
  if (ImplementsFunction(name)) return true;
  if (!query_imports) return false;
  for (const Any& imported : imports_) {
    if (imported.cast<Module>()->ImplementsFunction(name, true)) return true;
  }
  return false;
}

Optional<String> ModuleObj::GetFunctionDoc(const String& name, bool query_imports) {
  Optional<String> doc = GetFunctionDoc(name);
  if (doc.has_value() || !query_imports) return doc;
  for (const Any& imported : imports_) {
    doc = imported.cast<Module>()->GetFunctionDoc(name, true);
    if (doc.has_value()) return doc;
  }
  return std::nullopt;
}

Optional<String> ModuleObj::GetFunctionMetadata(const String& name, bool query_imports) {
  Optional<String> meta = GetFunctionMetadata(name);
  if (meta.has_value() || !query_imports) return meta;
  for (const Any& imported : imports_) {
    meta = imported.cast<Module>()->GetFunctionMetadata(name, true);
    if (meta.has_value()) return meta;
  }
  return std::nullopt;
}

void ModuleObj::ImportModule(const Module& other) {
  TVM_FFI_CHECK(other.defined(), ValueError) << "cannot import a null module";
  // Reject cycles: `this` must not be reachable from `other`.
  std::vector<const ModuleObj*> stack{other.get()};
  std::unordered_set<const ModuleObj*> seen;
  while (!stack.empty()) {
    const ModuleObj* m = stack.back();
    stack.pop_back();
    if (m == this) TVM_FFI_THROW(RuntimeError) << "Cyclic dependency detected during module import";
    if (!seen.insert(m).second) continue;
    for (const Any& sub : m->imports_) stack.push_back(sub.cast<Module>().get());
  }
  imports_.push_back(other);
}

void ModuleObj::ClearImports() {
  imports_.clear();
  import_lookup_cache_ = Map<String, Function>();
}

}  // namespace ffi
}  // namespace tvm
