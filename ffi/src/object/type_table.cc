/*
 * The process-wide type table: type keys, indices, the hierarchy (depth, ancestors, reserved
 * child-index ranges), reflection records and type-attribute columns.
 *
 * Returned TVMFFITypeInfo and TVMFFITypeAttrColumn pointers must never move: compiled modules
 * cache them. Entries are therefore heap-allocated once and never freed or relocated.
 */
#include <tvm/ffi/any.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../support/internal.h"

namespace tvm {
namespace ffi {
namespace {

/*! \brief One registered type. `info` is what TVMFFIGetTypeInfo hands out. */
struct TypeEntry {
  TVMFFITypeInfo info{};
  std::string key;
  std::vector<const TVMFFITypeInfo*> ancestors;
  int32_t num_slots = 0;       // this type's index plus its reserved child indices
  int32_t allocated_slots = 0; // how many of those are taken (starts at 1: the type itself)
  bool can_overflow = true;
  // Reflection storage: texts are copied into `strings`, which never relocates its elements.
  std::deque<std::string> strings;
  std::vector<TVMFFIFieldInfo> fields;
  std::vector<TVMFFIMethodInfo> methods;
  std::vector<Any> retained;  // defaults and methods kept alive
  std::unique_ptr<TVMFFITypeMetadata> metadata;

  TVMFFIByteArray Keep(const TVMFFIByteArray& text) {
    strings.emplace_back(text.data == nullptr ? "" : std::string(text.data, text.size));
    return details::MakeByteArray(strings.back().data(), strings.back().size());
  }
  void SyncReflection() {
    info.num_fields = static_cast<int32_t>(fields.size());
    info.fields = fields.empty() ? nullptr : fields.data();
    info.num_methods = static_cast<int32_t>(methods.size());
    info.methods = methods.empty() ? nullptr : methods.data();
  }
};

/*! \brief One attribute column; `column` is handed out and never moves. */
struct AttrColumn {
  TVMFFITypeAttrColumn column{nullptr, 0, 0};
  std::vector<Any> values;
};

class TypeTable {
 public:
  static TypeTable* Global() {
    // Leaked on purpose: objects and modules may still consult it during process exit.
    static TypeTable* table = new TypeTable();
    return table;
  }

  int32_t GetOrAlloc(std::string_view key, int32_t static_index, int32_t depth,
                     int32_t child_slots, bool can_overflow, int32_t parent_index) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = key_to_index_.find(std::string(key));
    if (it != key_to_index_.end()) return it->second;
    if (parent_index == -2) return -2;
    TypeEntry* parent = nullptr;
    if (parent_index >= 0) {
      parent = LookupLocked(parent_index);
      if (parent == nullptr) Fatal(key, "parent type index " + std::to_string(parent_index) + " is unknown");
      if (depth != parent->info.type_depth + 1) {
        Fatal(key, "depth " + std::to_string(depth) + " does not follow parent depth " +
                       std::to_string(parent->info.type_depth));
      }
    } else if (depth != 0) {
      Fatal(key, "a type of depth " + std::to_string(depth) + " needs a parent");
    }
    if (child_slots < 0) Fatal(key, "negative child slot count");
    int32_t index;
    if (static_index >= 0) {
      if (LookupLocked(static_index) != nullptr) {
        Fatal(key, "static index " + std::to_string(static_index) + " is taken");
      }
      index = static_index;
    } else if (parent != nullptr &&
               parent->allocated_slots + child_slots + 1 <= parent->num_slots) {
      index = parent->info.type_index + parent->allocated_slots;
      parent->allocated_slots += child_slots + 1;
    } else {
      if (parent != nullptr && !parent->can_overflow) {
        Fatal(key, "reach maximum number of sub-classes of " + parent->key);
      }
      index = next_dynamic_index_;
      next_dynamic_index_ += child_slots + 1;
    }
    auto entry = std::make_unique<TypeEntry>();
    entry->key = std::string(key);
    entry->num_slots = child_slots + 1;
    entry->allocated_slots = 1;
    entry->can_overflow = can_overflow && (parent == nullptr || parent->can_overflow);
    if (parent != nullptr) {
      entry->ancestors = parent->ancestors;
      entry->ancestors.push_back(&parent->info);
    }
    entry->info.type_index = index;
    entry->info.type_depth = depth;
    entry->info.type_key = details::MakeByteArray(entry->key.data(), entry->key.size());
    entry->info.type_ancestors = entry->ancestors.empty() ? nullptr : entry->ancestors.data();
    entry->info.type_key_hash = std::hash<std::string_view>()(entry->key);
    entry->SyncReflection();
    if (static_cast<size_t>(index) >= entries_.size()) entries_.resize(index + 1);
    entries_[index] = std::move(entry);
    key_to_index_[std::string(key)] = index;
    return index;
  }

  TypeEntry* Lookup(int32_t index) {
    std::lock_guard<std::mutex> lock(mutex_);
    return LookupLocked(index);
  }

  bool KeyToIndex(std::string_view key, int32_t* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = key_to_index_.find(std::string(key));
    if (it == key_to_index_.end()) return false;
    *out = it->second;
    return true;
  }

  std::vector<std::string> Keys() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& e : entries_) {
      if (e != nullptr) out.push_back(e->key);
    }
    return out;
  }

  AttrColumn* GetColumn(std::string_view name, bool create) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = columns_.find(std::string(name));
    if (it != columns_.end()) return it->second.get();
    if (!create) return nullptr;
    auto col = std::make_unique<AttrColumn>();
    AttrColumn* raw = col.get();
    columns_[std::string(name)] = std::move(col);
    return raw;
  }

  std::mutex& mutex() { return mutex_; }

 private:
  TypeTable() {
    // The value kinds: no parent, depth 0.
    static const char* kPodKeys[] = {"None",   "int",         "bool",           "float",
                                     "void*",  "DataType",    "Device",         "DLTensor*",
                                     "const char*", "TVMFFIByteArray*", "ObjectRValueRef",
                                     "ffi.SmallStr", "ffi.SmallBytes", "ffi.Unchanged"};
    for (int32_t i = 0; i <= kTVMFFIUnchanged; ++i) GetOrAlloc(kPodKeys[i], i, 0, 0, false, -1);
    GetOrAlloc("ffi.Object", kTVMFFIObject, 0, 0, true, -1);
    static const char* kObjectKeys[] = {"ffi.String", "ffi.Bytes",  "ffi.Error",
                                        "ffi.Function", "ffi.Shape", "ffi.Tensor",
                                        "ffi.Array",  "ffi.Map",    "ffi.Module",
                                        "ffi.OpaquePyObject", "ffi.List", "ffi.Dict",
                                        "ffi.VisitInterrupt", "ffi.BigInt"};
    for (int32_t i = kTVMFFIStr; i < kTVMFFIStaticObjectEnd; ++i) {
      GetOrAlloc(kObjectKeys[i - kTVMFFIStr], i, 1, 0, false, kTVMFFIObject);
    }
  }

  TypeEntry* LookupLocked(int32_t index) {
    if (index < 0 || static_cast<size_t>(index) >= entries_.size()) return nullptr;
    return entries_[index].get();
  }

  [[noreturn]] static void Fatal(std::string_view key, const std::string& why) {
    // Registration runs in static initialisers (often inside dlopen) with no caller to return
    // an error to; a corrupt type hierarchy must not be used, so stop loudly.
    std::fprintf(stderr, "tvm_ffi: cannot register type `%.*s`: %s\n",
                 static_cast<int>(key.size()), key.data(), why.c_str());
    std::abort();
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<TypeEntry>> entries_;
  std::unordered_map<std::string, int32_t> key_to_index_;
  std::unordered_map<std::string, std::unique_ptr<AttrColumn>> columns_;
  int32_t next_dynamic_index_ = kTVMFFIDynObjectBegin;
};

std::string_view View(const TVMFFIByteArray* arr) {
  return arr == nullptr || arr->data == nullptr ? std::string_view()
                                                : std::string_view(arr->data, arr->size);
}

TypeEntry* RequireEntry(int32_t type_index) {
  TypeEntry* entry = TypeTable::Global()->Lookup(type_index);
  if (entry == nullptr) {
    TVM_FFI_THROW(TypeError) << "unknown type index " << type_index;
  }
  return entry;
}

}  // namespace

std::vector<std::string> internal::RegisteredTypeKeys() { return TypeTable::Global()->Keys(); }

}  // namespace ffi
}  // namespace tvm

using tvm::ffi::Any;
using tvm::ffi::AnyView;
using tvm::ffi::TypeEntry;
using tvm::ffi::TypeTable;

extern "C" {

int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key, int32_t static_type_index,
                                  int32_t type_depth, int32_t num_child_slots,
                                  int32_t child_slots_can_overflow, int32_t parent_type_index) {
  return TypeTable::Global()->GetOrAlloc(tvm::ffi::View(type_key), static_type_index, type_depth,
                                         num_child_slots, child_slots_can_overflow != 0,
                                         parent_type_index);
}

const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index) {
  TypeEntry* entry = TypeTable::Global()->Lookup(type_index);
  if (entry == nullptr) {
    std::string msg = "unknown type index " + std::to_string(type_index);
    TVMFFIErrorSetRaisedFromCStr("TypeError", msg.c_str());
    return nullptr;
  }
  return &entry->info;
}

int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(type_key != nullptr && out_tindex != nullptr, ValueError) << "null argument";
  if (!TypeTable::Global()->KeyToIndex(tvm::ffi::View(type_key), out_tindex)) {
    TVM_FFI_THROW(KeyError) << "type key `" << tvm::ffi::View(type_key) << "` is not registered";
  }
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(info != nullptr, ValueError) << "null field info";
  TypeEntry* entry = tvm::ffi::RequireEntry(type_index);
  std::lock_guard<std::mutex> lock(TypeTable::Global()->mutex());
  std::string_view name = tvm::ffi::View(&info->name);
  for (const TVMFFIFieldInfo& f : entry->fields) {
    if (tvm::ffi::View(&f.name) == name) {
      TVM_FFI_THROW(RuntimeError) << "field `" << name << "` is already registered on `"
                                  << entry->key << "`";
    }
  }
  TVMFFIFieldInfo copy = *info;
  copy.name = entry->Keep(info->name);
  copy.doc = entry->Keep(info->doc);
  copy.metadata = entry->Keep(info->metadata);
  Any keep = AnyView::FromRaw(info->default_value_or_factory);
  copy.default_value_or_factory = *keep.raw();
  entry->retained.push_back(std::move(keep));
  entry->fields.push_back(copy);
  entry->SyncReflection();
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(info != nullptr, ValueError) << "null method info";
  TypeEntry* entry = tvm::ffi::RequireEntry(type_index);
  std::lock_guard<std::mutex> lock(TypeTable::Global()->mutex());
  TVMFFIMethodInfo copy = *info;
  copy.name = entry->Keep(info->name);
  copy.doc = entry->Keep(info->doc);
  copy.metadata = entry->Keep(info->metadata);
  Any keep = AnyView::FromRaw(info->method);
  copy.method = *keep.raw();
  entry->retained.push_back(std::move(keep));
  entry->methods.push_back(copy);
  entry->SyncReflection();
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(metadata != nullptr, ValueError) << "null metadata";
  TypeEntry* entry = tvm::ffi::RequireEntry(type_index);
  std::lock_guard<std::mutex> lock(TypeTable::Global()->mutex());
  if (entry->metadata != nullptr) {
    TVM_FFI_THROW(RuntimeError) << "Overriding metadata of type `" << entry->key << "`";
  }
  auto copy = std::make_unique<TVMFFITypeMetadata>(*metadata);
  copy->doc = entry->Keep(metadata->doc);
  entry->metadata = std::move(copy);
  entry->info.metadata = entry->metadata.get();
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                           const TVMFFIAny* attr_value) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(attr_name != nullptr && attr_value != nullptr, ValueError) << "null argument";
  tvm::ffi::AttrColumn* col = TypeTable::Global()->GetColumn(tvm::ffi::View(attr_name), true);
  if (type_index == kTVMFFINone) return 0;
  tvm::ffi::RequireEntry(type_index);
  TVM_FFI_CHECK(type_index >= 0, ValueError) << "negative type index";
  std::lock_guard<std::mutex> lock(TypeTable::Global()->mutex());
  if (static_cast<size_t>(type_index) >= col->values.size()) col->values.resize(type_index + 1);
  Any& slot = col->values[type_index];
  if (!slot.is_none()) {
    TVM_FFI_THROW(RuntimeError) << "attribute `" << tvm::ffi::View(attr_name)
                                << "` is already set for type index " << type_index;
  }
  slot = Any(AnyView::FromRaw(*attr_value));
  // Any is a bare TVMFFIAny, so the vector's storage is the column's data.
  col->column.data = reinterpret_cast<const TVMFFIAny*>(col->values.data());
  col->column.size = static_cast<int32_t>(col->values.size());
  TVM_FFI_SAFE_CALL_END();
}

const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name) {
  if (attr_name == nullptr) return nullptr;
  tvm::ffi::AttrColumn* col = TypeTable::Global()->GetColumn(tvm::ffi::View(attr_name), false);
  return col == nullptr ? nullptr : &col->column;
}

}  // extern "C"
