/*
 * DeepCopy (extra/dataclass.h). Containers and reflected objects are copied once each (a value
 * shared in the input is shared in the copy, cycles through Lists, Dicts and objects are kept);
 * a reflected object is copied with its type's `__ffi_shallow_copy__` and then its fields are
 * pointed at the copies. An Array/Map that (through a mutable container) contains itself is
 * fixed up once every copy exists, as apache-tvm-ffi does.
 */
#include <tvm/ffi/extra/dataclass.h>

#include <unordered_map>
#include <unordered_set>

#include "../support/internal.h"
#include "reflection_util.h"

namespace tvm {
namespace ffi {
namespace {
using namespace extra_detail;  // NOLINT(build/namespaces)

constexpr int kMaxDepth = 1000;

class Copier {
 public:
  Any Run(const Any& v) {
    Any out = Copy(v, 0);
    if (deferred_) Fixup();
    return out;
  }

 private:
  Any Copy(const Any& v, int depth) {
    int32_t ti = v.type_index();
    if (ti < kTVMFFIStaticObjectBegin) return v;
    const TVMFFIObject* obj = ObjectOf(v);
    if (obj == nullptr) return v;
    auto done = copies_.find(obj);
    if (done != copies_.end()) return done->second;
    if (building_.count(obj)) {
      deferred_ = true;
      return v;
    }
    if (ti == kTVMFFIStr || ti == kTVMFFIBytes || ti == kTVMFFIShape) return v;
    if (depth > kMaxDepth) {
      TVM_FFI_THROW(ValueError) << "DeepCopy: maximum nesting depth (" << kMaxDepth
                                << ") exceeded";
    }
    switch (ti) {
      case kTVMFFIArray: {
        building_.insert(obj);
        std::vector<Any> items;
        for (const Any& x : SequenceItems(v)) items.push_back(Copy(x, depth + 1));
        building_.erase(obj);
        Any out = Array<Any>(items.begin(), items.end());
        copies_[obj] = out;
        return out;
      }
      case kTVMFFIMap: {
        building_.insert(obj);
        Map<Any, Any> out;
        for (const auto& kv : MapItems(v)) out.Set(Copy(kv.first, depth + 1), Copy(kv.second, depth + 1));
        building_.erase(obj);
        copies_[obj] = out;
        return out;
      }
      case kTVMFFIList: {
        List<Any> out;
        std::vector<Any> items = SequenceItems(v);
        out.reserve(static_cast<int64_t>(items.size()));
        copies_[obj] = out;
        for (const Any& x : items) out.push_back(Copy(x, depth + 1));
        return out;
      }
      case kTVMFFIDict: {
        Dict<Any, Any> out;
        copies_[obj] = out;
        for (const auto& kv : MapItems(v)) {
          Any k = Copy(kv.first, depth + 1);
          out.Set(k, Copy(kv.second, depth + 1));
        }
        return out;
      }
      default:
        break;
    }
    std::optional<Function> shallow = TypeAttrFunction("__ffi_shallow_copy__", ti);
    if (!shallow.has_value()) {
      TVM_FFI_THROW(InternalError) << "Cannot deep copy object of type \"" << TypeKey(ti)
                                   << "\" because it is not copy-constructible";
    }
    Any out = (*shallow)(v);
    copies_[obj] = out;
    TVMFFIObject* copy_obj = ObjectOf(out);
    for (const TVMFFIFieldInfo* f : AllFields(ti)) {
      Any original = GetField(f, obj);
      Any copied = Copy(original, depth + 1);
      if (ObjectOf(copied) != ObjectOf(original)) SetField(f, copy_obj, copied);
    }
    return out;
  }

  /*! \brief Replaces references to originals (seen while their copy was being built). */
  void Fixup() {
    auto swap_in = [&](const Any& x, Any* out) {
      const TVMFFIObject* o = ObjectOf(x);
      if (o == nullptr) return false;
      auto it = copies_.find(o);
      if (it == copies_.end() || ObjectOf(it->second) == o) return false;
      *out = it->second;
      return true;
    };
    for (auto& entry : copies_) {
      const Any& copy = entry.second;
      int32_t ti = copy.type_index();
      if (ti == kTVMFFIList) {
        List<Any> list = copy.cast<List<Any>>();
        for (size_t i = 0; i < list.size(); ++i) {
          Any repl;
          if (swap_in(list[i], &repl)) list.Set(static_cast<int64_t>(i), repl);
        }
      } else if (ti == kTVMFFIDict) {
        Dict<Any, Any> dict = copy.cast<Dict<Any, Any>>();
        std::vector<std::tuple<Any, Any, Any>> changes;
        for (const auto& kv : MapItems(copy)) {
          Any k = kv.first, val = kv.second;
          bool changed = swap_in(kv.first, &k);
          changed = swap_in(kv.second, &val) || changed;
          if (changed) changes.emplace_back(kv.first, k, val);
        }
        for (auto& [old_key, new_key, val] : changes) {
          dict.erase(old_key);
          dict.Set(new_key, val);
        }
      } else if (ti >= kTVMFFIStaticObjectEnd) {
        TVMFFIObject* obj = ObjectOf(copy);
        for (const TVMFFIFieldInfo* f : AllFields(ti)) {
          Any repl;
          if (swap_in(GetField(f, obj), &repl)) SetField(f, obj, repl);
        }
      }
    }
  }

  std::unordered_map<const TVMFFIObject*, Any> copies_;
  std::unordered_set<const TVMFFIObject*> building_;
  bool deferred_ = false;
};

}  // namespace

Any DeepCopy(const Any& value) { return Copier().Run(value); }

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.DeepCopy", [](Any v) { return DeepCopy(v); });
}

}  // namespace ffi
}  // namespace tvm
