/*
 * StructuralHash::Hash (extra/structural_hash.h): apache-tvm-ffi 0.1.16's structural hash,
 * number for number where it is deterministic (everything except free variables hashed outside
 * a definition region, which hash by address), reading objects through the shared type table.
 */
#include <tvm/ffi/extra/structural_hash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../support/internal.h"
#include "structural_common.h"

namespace tvm {
namespace ffi {
namespace {
using namespace extra_detail;  // NOLINT(build/namespaces)
using details::StableHashBytes;
using details::StableHashCombine;

constexpr uint64_t kSmallStrMod = 2147483647ULL;

class HashWalker {
 public:
  HashWalker(bool map_free_vars, bool skip_tensor_content)
      : region_(map_free_vars ? kTVMFFIDefRegionKindPattern : kTVMFFIDefRegionKindNone),
        skip_tensor_content_(skip_tensor_content) {}

  uint64_t Hash(const Any& v) {
    const TVMFFIAny* raw = v.raw();
    int32_t ti = raw->type_index;
    if (ti < kTVMFFIStaticObjectBegin) {
      if (ti == kTVMFFIFloat && std::isnan(raw->v_float64)) {
        double nan = std::numeric_limits<double>::quiet_NaN();
        uint64_t bits;
        std::memcpy(&bits, &nan, sizeof(bits));
        return StableHashCombine(static_cast<uint64_t>(ti), bits);
      }
      if (ti == kTVMFFISmallStr) {  // the same number as the heap form of the string
        return StableHashCombine(static_cast<uint64_t>(kTVMFFIStr), raw->v_uint64 % kSmallStrMod);
      }
      return StableHashCombine(static_cast<uint64_t>(ti), raw->v_uint64);
    }
    if (++depth_ > kStructuralMaxDepth) {
      --depth_;
      TVM_FFI_THROW(ValueError) << "StructuralHash: maximum nesting depth ("
                                << kStructuralMaxDepth << ") exceeded";
    }
    uint64_t h;
    try {
      h = HashObjectValue(v, ti);
    } catch (...) {
      --depth_;
      throw;
    }
    --depth_;
    return h;
  }

 private:
  static uint64_t KeyHash(int32_t ti) { return TypeInfo(ti)->type_key_hash; }

  static uint64_t HashBigInt(const Any& v) {
    std::string_view w = BigIntWords(v);
    return StableHashCombine(static_cast<uint64_t>(kTVMFFIBigInt),
                             StableHashBytes(w.data(), w.size()));
  }

  uint64_t HashObjectValue(const Any& v, int32_t ti) {
    switch (ti) {
      case kTVMFFIBigInt:
        return HashBigInt(v);
      case kTVMFFIStr:
      case kTVMFFIBytes: {
        std::string_view s = BytesView(v);
        return StableHashCombine(static_cast<uint64_t>(ti), StableHashBytes(s.data(), s.size()));
      }
      case kTVMFFIArray:
      case kTVMFFIList: {
        std::vector<Any> items = SequenceItems(v);
        uint64_t h = StableHashCombine(KeyHash(ti), items.size());
        for (const Any& x : items) h = StableHashCombine(h, Hash(x));
        return h;
      }
      case kTVMFFIMap:
      case kTVMFFIDict:
        return HashMap(MapObjOf(v), ti);
      case kTVMFFIShape: {
        Shape shape = v.cast<Shape>();
        uint64_t h = StableHashCombine(KeyHash(ti), shape.size());
        for (int64_t d : shape) h = StableHashCombine(h, static_cast<uint64_t>(d));
        return h;
      }
      case kTVMFFITensor:
        return HashTensor(TensorOf(v), ti);
      default:
        return HashReflected(RefOf(v), ti);
    }
  }

  uint64_t HashReflected(const ObjectRef& obj, int32_t ti) {
    TVMFFISEqHashKind kind = StructuralKindOrThrow(ti, "StructuralHash");
    auto memo = memo_.find(obj);
    if (memo != memo_.end()) return memo->second;
    uint64_t h;
    if (kind != kTVMFFISEqHashKindFreeVar) {
      h = HashFields(obj, ti, KeyHash(ti));
    } else {
      // The fields are always walked (the free-variable counter they may advance is observable
      // later), with a Simple region closed around them.
      TVMFFIDefRegionKind saved = region_;
      if (region_ == kTVMFFIDefRegionKindSimple) region_ = kTVMFFIDefRegionKindNone;
      try {
        h = HashFields(obj, ti, KeyHash(ti));
      } catch (...) {
        region_ = saved;
        throw;
      }
      region_ = saved;
      if (region_ != kTVMFFIDefRegionKindNone) {
        h = StableHashCombine(h, free_var_counter_++);
      } else {
        h = std::hash<const Object*>()(obj.get());
      }
    }
    if (kind == kTVMFFISEqHashKindDAGNode) h = StableHashCombine(h, graph_node_counter_++);
    memo_[obj] = h;
    return h;
  }

  template <typename F>
  uint64_t InRegion(TVMFFIDefRegionKind kind, F fn) {
    TVMFFIDefRegionKind saved = region_;
    region_ = kind;
    uint64_t h;
    try {
      h = fn();
    } catch (...) {
      region_ = saved;
      throw;
    }
    region_ = saved;
    return h;
  }

  uint64_t HashFields(const ObjectRef& obj, int32_t ti, uint64_t h) {
    if (std::optional<Function> hook = TypeAttrFunction("__s_hash__", ti)) {
      Function cb = Function::FromTyped([this](AnyView x, int64_t init, int region) -> int64_t {
        uint64_t hv = InRegion(CallbackRegion(region, region_), [&] { return Hash(Any(x)); });
        return static_cast<int64_t>(StableHashCombine(static_cast<uint64_t>(init), hv));
      });
      return static_cast<uint64_t>((*hook)(obj, static_cast<int64_t>(h), cb).cast<int64_t>());
    }
    const TVMFFIObject* o = ObjectOf(Any(obj));
    for (const TVMFFIFieldInfo* f : AllFields(ti)) {
      if (f->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) continue;
      Any x = GetField(f, o);
      bool opens;
      TVMFFIDefRegionKind kind = FieldRegion(f->flags, region_, &opens);
      uint64_t hv = opens ? InRegion(kind, [&] { return Hash(x); }) : Hash(x);
      h = StableHashCombine(h, hv);
    }
    return h;
  }

  /*!
   * \brief A key's hash that does not depend on where the map is met: values by content, objects
   * only when already hashed in this walk (else the entry is left out).
   */
  std::optional<uint64_t> KeyHashOf(const Any& key) {
    const TVMFFIAny* raw = key.raw();
    int32_t ti = raw->type_index;
    if (ti < kTVMFFIStaticObjectBegin) {
      if (ti == kTVMFFISmallStr) {
        return StableHashCombine(static_cast<uint64_t>(kTVMFFIStr),
                                 StableHashBytes(raw->v_bytes, raw->small_str_len));
      }
      return StableHashCombine(static_cast<uint64_t>(ti), raw->v_uint64);
    }
    if (ti == kTVMFFIStr || ti == kTVMFFIBytes) {
      std::string_view s = BytesView(key);
      return StableHashCombine(static_cast<uint64_t>(ti), StableHashBytes(s.data(), s.size()));
    }
    if (ti == kTVMFFIBigInt) return HashBigInt(key);
    auto it = memo_.find(RefOf(key));
    if (it != memo_.end()) return it->second;
    return std::nullopt;
  }

  uint64_t HashMap(const MapBaseObj* map, int32_t ti) {
    uint64_t h = StableHashCombine(KeyHash(ti), map->size());
    std::vector<std::pair<uint64_t, Any>> items;
    for (const auto& kv : *map) {
      if (std::optional<uint64_t> k = KeyHashOf(kv.first)) items.emplace_back(*k, kv.second);
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < items.size();) {
      size_t j = i + 1;
      while (j < items.size() && items[j].first == items[i].first) ++j;
      h = StableHashCombine(h, items[i].first);
      // Equal key hashes (rare): the values are left out, so the order among them cannot matter.
      if (j == i + 1) h = StableHashCombine(h, Hash(items[i].second));
      i = j;
    }
    return h;
  }

  uint64_t HashTensor(const DLTensor* t, int32_t ti) {
    uint64_t h = StableHashCombine(KeyHash(ti), static_cast<uint64_t>(t->ndim));
    for (int32_t i = 0; i < t->ndim; ++i) h = StableHashCombine(h, static_cast<uint64_t>(t->shape[i]));
    TVMFFIAny dtype_word{};
    dtype_word.v_uint64 = 0;
    dtype_word.v_dtype = t->dtype;
    h = StableHashCombine(h, dtype_word.v_uint64);
    if (!skip_tensor_content_) {
      size_t bytes = TensorDataBytes(t, "StructuralHash");
      h = StableHashCombine(h, StableHashBytes(t->data, bytes));
    }
    return h;
  }

  TVMFFIDefRegionKind region_;
  bool skip_tensor_content_;
  int depth_ = 0;
  uint32_t free_var_counter_ = 0;
  uint32_t graph_node_counter_ = 0;
  std::unordered_map<ObjectRef, uint64_t, RefPtrHash, RefPtrEqual> memo_;
};

}  // namespace

uint64_t StructuralHash::Hash(const Any& value, bool map_free_vars, bool skip_tensor_content) {
  return HashWalker(map_free_vars, skip_tensor_content).Hash(value);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin(
      "ffi.StructuralHash", [](Any value, bool map_free_vars, bool skip_tensor_content) {
        return static_cast<int64_t>(
            StructuralHash::Hash(value, map_free_vars, skip_tensor_content));
      });
  TVMFFIByteArray name{"__s_hash__", 10};
  TVMFFIAny none{};
  none.type_index = kTVMFFINone;
  TVMFFITypeRegisterAttr(kTVMFFINone, &name, &none);
}

}  // namespace ffi
}  // namespace tvm
