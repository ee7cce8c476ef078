/*
 * Library module functions, the `__tvm_ffi__library_bin` import tree, context symbols and
 * TVMFFIEnvModLookupFromImports.
 */
#include "library_module.h"

#include <tvm/ffi/extra/c_env_api.h>

#include <cstring>
#include <vector>

namespace tvm {
namespace ffi {
namespace internal {
namespace {

/*! \brief A Function calling an exported symbol with handle NULL; keeps its module alive. */
class SymbolFunctionObj : public FunctionObj {
 public:
  SymbolFunctionObj(TVMFFISafeCallType symbol, ObjectPtr<Object> owner)
      : symbol_(symbol), owner_(std::move(owner)) {
    cell.safe_call = Call;
    cell.cpp_call = nullptr;
  }

 private:
  static int Call(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    auto* self = static_cast<SymbolFunctionObj*>(
        static_cast<FunctionObj*>(details::ObjectUnsafe::FromHandle(handle)));
    return self->symbol_(nullptr, args, num_args, result);
  }
  TVMFFISafeCallType symbol_;
  ObjectPtr<Object> owner_;
};

/*! \brief Context symbols registered by the host, written into each library loaded later. */
struct ContextSymbols {
  std::mutex mutex;
  std::vector<std::pair<std::string, void*>> entries;
};
ContextSymbols& GetContextSymbols() {
  static ContextSymbols* symbols = new ContextSymbols();
  return *symbols;
}

/*! \brief Bounds-checked little-endian reader over the import-tree blob. */
class BlobReader {
 public:
  BlobReader(const char* data, uint64_t size) : data_(data), size_(size) {}
  uint64_t U64() {
    Need(8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(data_[pos_ + i]);
    pos_ += 8;
    return v;
  }
  std::string Str() {
    uint64_t n = U64();
    Need(n);
    std::string out(data_ + pos_, n);
    pos_ += n;
    return out;
  }
  std::vector<uint64_t> Vec() {
    uint64_t n = U64();
    TVM_FFI_CHECK(n <= (size_ - pos_) / 8, ValueError)
        << "corrupt __tvm_ffi__library_bin: vector length " << n << " exceeds the blob";
    std::vector<uint64_t> out(n);
    for (uint64_t& v : out) v = U64();
    return out;
  }
  bool AtEnd() const { return pos_ == size_; }

 private:
  void Need(uint64_t n) {
    TVM_FFI_CHECK(n <= size_ - pos_, ValueError)
        << "corrupt __tvm_ffi__library_bin: truncated at byte " << pos_;
  }
  const char* data_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

/*! \brief Rebuilds the module tree described by the blob; module 0 is the root. */
Module LoadImportTree(const char* blob, const Module& lib_module) {
  uint64_t nbytes = 0;
  for (int i = 7; i >= 0; --i) nbytes = (nbytes << 8) | static_cast<unsigned char>(blob[i]);
  BlobReader reader(blob + 8, nbytes);
  std::vector<uint64_t> indptr = reader.Vec();
  std::vector<uint64_t> children = reader.Vec();
  TVM_FFI_CHECK(!indptr.empty(), ValueError) << "corrupt __tvm_ffi__library_bin: empty index";
  size_t num_modules = indptr.size() - 1;
  std::vector<Module> modules;
  for (size_t i = 0; i < num_modules; ++i) {
    std::string kind = reader.Str();
    if (kind == "_lib") {
      modules.push_back(lib_module);
      continue;
    }
    std::string payload = reader.Str();
    std::string loader = "ffi.Module.load_from_bytes." + kind;
    std::optional<Function> f = Function::GetGlobal(loader);
    if (!f.has_value()) {
      TVM_FFI_THROW(RuntimeError) << "Library binary was created using " << kind
                                  << " but a loader of that name is not registered. Make sure "
                                     "the runtime library providing `" << loader << "` is loaded.";
    }
    modules.push_back((*f)(Bytes(payload)).cast<Module>());
  }
  TVM_FFI_CHECK(reader.AtEnd(), ValueError) << "corrupt __tvm_ffi__library_bin: trailing bytes";
  for (size_t i = 0; i < num_modules; ++i) {
    TVM_FFI_CHECK(indptr[i] <= indptr[i + 1] && indptr[i + 1] <= children.size(), ValueError)
        << "corrupt __tvm_ffi__library_bin: bad import index";
    for (uint64_t k = indptr[i]; k < indptr[i + 1]; ++k) {
      TVM_FFI_CHECK(children[k] < num_modules, ValueError)
          << "corrupt __tvm_ffi__library_bin: import " << children[k] << " out of range";
      modules[i]->ImportModule(modules[children[k]]);
    }
  }
  TVM_FFI_CHECK(num_modules > 0, ValueError) << "corrupt __tvm_ffi__library_bin: no modules";
  return modules[0];
}

}  // namespace

Optional<Function> LibraryModuleObj::GetFunction(const String& name) {
  void* sym = source_->Find("__tvm_ffi_" + std::string(name));
  if (sym == nullptr) return std::nullopt;
  ObjectPtr<Object> self = details::ObjectUnsafe::PtrFromUnowned<Object>(this);
  return Function(make_object<SymbolFunctionObj>(reinterpret_cast<TVMFFISafeCallType>(sym),
                                                 std::move(self)));
}

std::optional<String> LibraryModuleObj::CallStringSymbol(const std::string& symbol) const {
  void* sym = source_->Find(symbol);
  if (sym == nullptr) return std::nullopt;
  TVMFFIAny result;
  details::InitNone(&result);
  if (reinterpret_cast<TVMFFISafeCallType>(sym)(nullptr, nullptr, 0, &result) != 0) {
    throw details::MoveFromRaised();
  }
  return Any::FromOwnedRaw(result).cast<String>();
}

Optional<String> LibraryModuleObj::GetFunctionMetadata(const String& name) {
  return CallStringSymbol("__tvm_ffi__metadata_" + std::string(name));
}

Optional<String> LibraryModuleObj::GetFunctionDoc(const String& name) {
  return CallStringSymbol("__tvm_ffi__doc_" + std::string(name));
}

const Function& LibraryModuleObj::LookupFromImports(const std::string& name) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto it = lookup_cache_.find(name);
  if (it != lookup_cache_.end()) return it->second;
  std::optional<Function> f;
  for (const Any& imported : imports_) {
    f = imported.cast<Module>()->GetFunction(name, true);
    if (f.has_value()) break;
  }
  if (!f.has_value()) f = Function::GetGlobal(name);
  if (!f.has_value()) {
    TVM_FFI_THROW(RuntimeError) << "Cannot find function " << name
                                << " in the imported modules or global registry.";
  }
  return lookup_cache_.emplace(name, *f).first->second;
}

Module CreateLibraryModule(std::shared_ptr<SymbolSource> source) {
  {
    ContextSymbols& ctx = GetContextSymbols();
    std::lock_guard<std::mutex> lock(ctx.mutex);
    for (const auto& [name, value] : ctx.entries) {
      if (void** slot = static_cast<void**>(source->Find(name))) *slot = value;
    }
  }
  auto obj = make_object<LibraryModuleObj>(source);
  Module lib{ObjectPtr<ModuleObj>(obj)};
  Module root = lib;
  if (const char* blob = static_cast<const char*>(source->Find("__tvm_ffi__library_bin"))) {
    root = LoadImportTree(blob, lib);
  }
  if (void** ctx_slot = static_cast<void**>(source->Find("__tvm_ffi__library_ctx"))) {
    // The library's own code passes this back to TVMFFIEnvModLookupFromImports. The module
    // outlives any call made from its code, so the handle is not separately owned.
    *ctx_slot = details::ObjectUnsafe::ToHandle(lib.get());
  }
  return root;
}

}  // namespace internal

void Module::VisitContextSymbols(const TypedFunction<void(String, void*)>& callback) {
  std::vector<std::pair<std::string, void*>> entries;
  {
    internal::ContextSymbols& ctx = internal::GetContextSymbols();
    std::lock_guard<std::mutex> lock(ctx.mutex);
    entries = ctx.entries;  // the callback may register more: do not hold the lock
  }
  for (const auto& [name, value] : entries) callback(String(name), value);
}

}  // namespace ffi
}  // namespace tvm

extern "C" {

int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char* func_name,
                                  TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(library_ctx != nullptr && func_name != nullptr && out != nullptr, ValueError)
      << "null argument";
  TVM_FFI_CHECK(TVMFFIObjectGetTypeIndex(library_ctx) == kTVMFFIModule, TypeError)
      << "library context is not a module";
  auto* mod = static_cast<tvm::ffi::ModuleObj*>(
      tvm::ffi::details::ObjectUnsafe::FromHandle(library_ctx));
  auto* lib = dynamic_cast<tvm::ffi::internal::LibraryModuleObj*>(mod);
  TVM_FFI_CHECK(lib != nullptr, TypeError) << "library context is not a library module";
  const tvm::ffi::Function& f = lib->LookupFromImports(func_name);
  *out = tvm::ffi::details::ObjectUnsafe::ToHandle(f.get());
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(name != nullptr, ValueError) << "null name";
  auto& ctx = tvm::ffi::internal::GetContextSymbols();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  for (auto& entry : ctx.entries) {
    if (entry.first == name) {
      entry.second = symbol;
      return 0;
    }
  }
  ctx.entries.emplace_back(name, symbol);
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
