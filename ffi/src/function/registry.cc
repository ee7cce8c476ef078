/*
 * The global function registry (name -> Function, with doc and metadata) and the registry
 * helpers every binding relies on (listing, removal, metadata lookup).
 */
#include <tvm/ffi/function.h>

#include <algorithm>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "../support/internal.h"

namespace tvm {
namespace ffi {
namespace {

struct GlobalEntry {
  Function func;
  std::string doc;
  std::string metadata;
};

class Registry {
 public:
  static Registry* Global() {
    // Leaked on purpose: Functions may live in libraries unloaded before static destructors.
    static Registry* registry = new Registry();
    return registry;
  }

  void Set(const std::string& name, Function f, std::string doc, std::string metadata,
           bool allow_override) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it != table_.end() && !allow_override) {
      TVM_FFI_THROW(RuntimeError) << "Global Function `" << name << "` is already registered";
    }
    if (it == table_.end()) order_.push_back(name);
    table_[name] = GlobalEntry{std::move(f), std::move(doc), std::move(metadata)};
  }

  std::optional<GlobalEntry> Get(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it == table_.end()) return std::nullopt;
    return it->second;
  }

  bool Remove(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (table_.erase(name) == 0) return false;
    order_.erase(std::find(order_.begin(), order_.end(), name));
    return true;
  }

  std::vector<std::string> Names() {
    std::lock_guard<std::mutex> lock(mutex_);
    return order_;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, GlobalEntry> table_;
  std::vector<std::string> order_;  // registration order, for stable listings
};

std::string ToString(const TVMFFIByteArray& arr) {
  return arr.data == nullptr ? std::string() : std::string(arr.data, arr.size);
}

Function RequireFunctionHandle(TVMFFIObjectHandle f) {
  TVM_FFI_CHECK(f != nullptr, ValueError) << "null function handle";
  TVM_FFI_CHECK(TVMFFIObjectGetTypeIndex(f) == kTVMFFIFunction, TypeError)
      << "expected a Function, got type index " << TVMFFIObjectGetTypeIndex(f);
  return Function(details::ObjectUnsafe::PtrFromUnowned<FunctionObj>(
      details::ObjectUnsafe::FromHandle(f)));
}

}  // namespace

void internal::RegisterBuiltinGlobal(const char* name, Function f) {
  try {
    Registry::Global()->Set(name, std::move(f), "", "", false);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tvm_ffi: %s\n", e.what());
    std::abort();
  }
}

TVM_FFI_STATIC_INIT_BLOCK() {
  using internal::RegisterBuiltin;
  RegisterBuiltin("ffi.FunctionRemoveGlobal",
                  [](const String& name) { return Registry::Global()->Remove(name); });
  RegisterBuiltin("ffi.FunctionListGlobalNamesFunctor", []() {
    auto names = std::make_shared<std::vector<std::string>>(Registry::Global()->Names());
    return Function::FromTyped([names](int64_t i) -> Any {
      if (i < 0) return static_cast<int64_t>(names->size());
      TVM_FFI_CHECK(i < static_cast<int64_t>(names->size()), IndexError) << "index " << i;
      return String((*names)[i]);
    });
  });
  RegisterBuiltin("ffi.GetGlobalFuncMetadata", [](const String& name) {
    std::optional<GlobalEntry> e = Registry::Global()->Get(name);
    TVM_FFI_CHECK(e.has_value(), RuntimeError) << "Global Function `" << name << "` not found";
    return String(e->metadata);
  });
  RegisterBuiltin("ffi.GetGlobalFuncDoc", [](const String& name) {
    std::optional<GlobalEntry> e = Registry::Global()->Get(name);
    TVM_FFI_CHECK(e.has_value(), RuntimeError) << "Global Function `" << name << "` not found";
    return String(e->doc);
  });
  RegisterBuiltin("ffi.FunctionFromExternC", [](void* self, void* safe_call, void* deleter) {
    return Function::FromExternC(self, reinterpret_cast<TVMFFISafeCallType>(safe_call),
                                 reinterpret_cast<void (*)(void*)>(deleter));
  });
  RegisterBuiltin("ffi.String", [](const String& s) { return s; });
  RegisterBuiltin("ffi.Bytes", [](const Bytes& b) { return b; });
}

}  // namespace ffi
}  // namespace tvm

using tvm::ffi::Registry;

extern "C" {

int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f, int allow_override) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(name != nullptr, ValueError) << "null name";
  Registry::Global()->Set(tvm::ffi::ToString(*name), tvm::ffi::RequireFunctionHandle(f), "", "",
                          allow_override != 0);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info, int allow_override) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(method_info != nullptr, ValueError) << "null method info";
  TVM_FFI_CHECK(method_info->method.type_index == kTVMFFIFunction, TypeError)
      << "method info does not hold a Function";
  Registry::Global()->Set(tvm::ffi::ToString(method_info->name),
                          tvm::ffi::RequireFunctionHandle(method_info->method.v_obj),
                          tvm::ffi::ToString(method_info->doc),
                          tvm::ffi::ToString(method_info->metadata), allow_override != 0);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(name != nullptr && out != nullptr, ValueError) << "null argument";
  std::optional<tvm::ffi::GlobalEntry> e = Registry::Global()->Get(tvm::ffi::ToString(*name));
  *out = e.has_value() ? tvm::ffi::details::ObjectUnsafe::MoveToHandle(std::move(e->func))
                       : nullptr;
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
