/*
 * Loading modules from files (dlopen) and from the system library, and the `ffi.Module*`
 * globals every language binding uses.
 */
#include <dlfcn.h>
#include <sys/stat.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "../support/internal.h"
#include "library_module.h"

namespace tvm {
namespace ffi {
namespace internal {
namespace {

/*! \brief A dlopen'ed shared library, closed when the last module using it dies. */
class DynamicLibrary : public SymbolSource {
 public:
  explicit DynamicLibrary(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      TVM_FFI_THROW(RuntimeError) << "cannot load module: file `" << path << "` does not exist";
    }
    handle_ = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      TVM_FFI_THROW(RuntimeError) << "cannot load module `" << path
                                  << "` as a shared library: " << (why ? why : "unknown error");
    }
  }
  ~DynamicLibrary() override {
    if (handle_ != nullptr) dlclose(handle_);
  }
  void* Find(const std::string& name) const override { return dlsym(handle_, name.c_str()); }

 private:
  void* handle_ = nullptr;
};

/*! \brief Symbols registered by statically linked code (TVMFFIEnvModRegisterSystemLibSymbol). */
class SystemLibSymbols {
 public:
  static SystemLibSymbols* Global() {
    static SystemLibSymbols* inst = new SystemLibSymbols();
    return inst;
  }
  void Register(const std::string& name, void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it != table_.end() && it->second != ptr) {
      std::fprintf(stderr, "tvm_ffi: warning: system library symbol `%s` registered twice\n",
                   name.c_str());
    }
    table_[name] = ptr;
  }
  void* Find(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = table_.find(name);
    return it == table_.end() ? nullptr : it->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, void*> table_;
};

/*! \brief The system library seen through a name prefix ("" or e.g. "testing."). */
class SystemLibSource : public SymbolSource {
 public:
  explicit SystemLibSource(std::string prefix) : prefix_(std::move(prefix)) {}
  void* Find(const std::string& name) const override {
    static const std::string kFuncPrefix = "__tvm_ffi_";
    SystemLibSymbols* syms = SystemLibSymbols::Global();
    bool is_function = name.compare(0, kFuncPrefix.size(), kFuncPrefix) == 0 &&
                       name.compare(0, kFuncPrefix.size() + 1, kFuncPrefix + "_") != 0;
    if (is_function) {
      std::string base = name.substr(kFuncPrefix.size());
      if (void* p = syms->Find(kFuncPrefix + prefix_ + base)) return p;
      return syms->Find(name);
    }
    if (void* p = syms->Find(prefix_ + name)) return p;
    return syms->Find(name);
  }

 private:
  std::string prefix_;
};

/*! \brief Modules pinned for the life of the process (load_module's keep-alive). */
struct PinnedModules {
  std::mutex mutex;
  std::vector<Module> modules;
};
PinnedModules& Pinned() {
  static PinnedModules* p = new PinnedModules();
  return *p;
}

std::string FormatOf(const std::string& path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  std::string fmt = (dot == std::string::npos || (slash != std::string::npos && dot < slash))
                        ? std::string()
                        : path.substr(dot + 1);
  if (fmt == "dll" || fmt == "dylib" || fmt == "dso") fmt = "so";
  return fmt;
}

Module LoadFromFile(const String& path) {
  std::string fmt = FormatOf(path);
  std::string loader = "ffi.Module.load_from_file." + fmt;
  std::optional<Function> f = Function::GetGlobal(loader);
  if (!f.has_value()) {
    TVM_FFI_THROW(RuntimeError) << "cannot load `" << path << "`: no loader for format `" << fmt
                                << "` (`" << loader << "` is not registered)";
  }
  return (*f)(path, String(fmt)).cast<Module>();
}

}  // namespace
}  // namespace internal

Module Module::LoadFromFile(const String& path) { return internal::LoadFromFile(path); }

namespace internal {

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterBuiltin("ffi.ModuleLoadFromFile", [](const String& path) { return LoadFromFile(path); });
  RegisterBuiltin("ffi.Module.load_from_file.so", [](const String& path, const String&) {
    return CreateLibraryModule(std::make_shared<DynamicLibrary>(std::string(path)));
  });
  RegisterBuiltin("ffi.SystemLib", [](std::optional<String> prefix) {
    // One module per prefix, so repeated lookups share caches and identity.
    static std::mutex mutex;
    static auto* cache = new std::unordered_map<std::string, Module>();
    std::string key = prefix.has_value() ? std::string(*prefix) : std::string();
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
    Module m = CreateLibraryModule(std::make_shared<SystemLibSource>(key));
    cache->emplace(key, m);
    return m;
  });
  RegisterBuiltin("ffi.ModuleGetFunction",
                  [](const Module& mod, const String& name, bool query_imports) {
                    return mod.GetFunction(name, query_imports);
                  });
  RegisterBuiltin("ffi.ModuleImplementsFunction",
                  [](const Module& mod, const String& name, bool query_imports) {
                    return mod->ImplementsFunction(name, query_imports);
                  });
  RegisterBuiltin("ffi.ModuleGetFunctionMetadata",
                  [](const Module& mod, const String& name, bool query_imports) {
                    return mod->GetFunctionMetadata(name, query_imports);
                  });
  RegisterBuiltin("ffi.ModuleGetFunctionDoc",
                  [](const Module& mod, const String& name, bool query_imports) {
                    return mod->GetFunctionDoc(name, query_imports);
                  });
  RegisterBuiltin("ffi.ModuleGetKind", [](const Module& mod) { return String(mod->kind()); });
  RegisterBuiltin("ffi.ModuleGetPropertyMask",
                  [](const Module& mod) { return static_cast<int64_t>(mod->GetPropertyMask()); });
  RegisterBuiltin("ffi.ModuleImportModule",
                  [](const Module& mod, const Module& other) { mod->ImportModule(other); });
  RegisterBuiltin("ffi.ModuleClearImports", [](const Module& mod) { mod->ClearImports(); });
  RegisterBuiltin("ffi.ModuleNumImports",
                  [](const Module& mod) { return static_cast<int64_t>(mod->imports().size()); });
  RegisterBuiltin("ffi.ModuleGetImport", [](const Module& mod, int64_t i) {
    TVM_FFI_CHECK(i >= 0 && i < static_cast<int64_t>(mod->imports().size()), IndexError)
        << "import index " << i << " out of range";
    return mod->imports()[i].cast<Module>();
  });
  RegisterBuiltin("ffi.ModuleSaveToBytes", [](const Module& mod) { return mod->SaveToBytes(); });
  RegisterBuiltin("ffi.ModuleInspectSource",
                  [](const Module& mod, const String& fmt) { return mod->InspectSource(fmt); });
  RegisterBuiltin("ffi.ModuleWriteToFile", [](const Module& mod, const String& file,
                                              const String& fmt) { mod->WriteToFile(file, fmt); });
  RegisterBuiltin("ffi.ModuleGlobalsAdd", [](const Module& mod) {
    std::lock_guard<std::mutex> lock(Pinned().mutex);
    Pinned().modules.push_back(mod);
  });
  RegisterBuiltin("ffi.ModuleGlobalsRemove", [](const Module& mod) {
    std::lock_guard<std::mutex> lock(Pinned().mutex);
    auto& v = Pinned().modules;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it->same_as(mod)) {
        v.erase(it);
        return true;
      }
    }
    return false;
  });
}

}  // namespace internal
}  // namespace ffi
}  // namespace tvm

extern "C" int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol) {
  if (name != nullptr) tvm::ffi::internal::SystemLibSymbols::Global()->Register(name, symbol);
  return 0;
}
