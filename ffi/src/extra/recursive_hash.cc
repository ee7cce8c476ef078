/*
 * RecursiveHash (extra/dataclass.h): a hash by value consistent with RecursiveEq, computed as
 * apache-tvm-ffi computes it (StableHashCombine over type indices, payloads and the type key
 * hashes of the shared type table), so both libraries give the same number for the same value.
 */
#include <tvm/ffi/extra/dataclass.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "../support/internal.h"
#include "reflection_util.h"

namespace tvm {
namespace ffi {
namespace {
using namespace extra_detail;  // NOLINT(build/namespaces)
using details::StableHashBytes;
using details::StableHashCombine;

constexpr int kMaxDepth = 1000;

class Hasher {
 public:
  uint64_t Hash(const Any& v, int depth = 0) {
    const TVMFFIAny* raw = v.raw();
    int32_t ti = raw->type_index;
    if (ti == kTVMFFINone) return StableHashCombine(uint64_t{0}, uint64_t{0});
    if (IsStr(ti) || IsBytes(ti)) {
      std::string_view s = BytesView(v);
      return StableHashCombine(static_cast<uint64_t>(IsStr(ti) ? kTVMFFIStr : kTVMFFIBytes),
                               StableHashBytes(s.data(), s.size()));
    }
    if (ti < kTVMFFIStaticObjectBegin) return HashPOD(raw);
    const TVMFFIObject* obj = ObjectOf(v);
    if (obj == nullptr) return StableHashCombine(uint64_t{0}, uint64_t{0});
    auto memo = memo_.find(obj);
    if (memo != memo_.end()) return memo->second;
    if (open_.count(obj)) return TypeInfo(ti)->type_key_hash;
    if (ti == kTVMFFIShape) {
      Shape shape = v.cast<Shape>();
      uint64_t h = StableHashCombine(TypeInfo(ti)->type_key_hash, shape.size());
      for (int64_t d : shape) h = StableHashCombine(h, static_cast<uint64_t>(d));
      return memo_[obj] = h;
    }
    if (depth > kMaxDepth) {
      TVM_FFI_THROW(ValueError) << "RecursiveHash: maximum nesting depth (" << kMaxDepth
                                << ") exceeded";
    }
    open_.insert(obj);
    uint64_t h;
    try {
      h = HashObject(v, obj, ti, depth);
    } catch (...) {
      open_.erase(obj);
      throw;
    }
    open_.erase(obj);
    return memo_[obj] = h;
  }

 private:
  uint64_t HashObject(const Any& v, const TVMFFIObject* obj, int32_t ti, int depth) {
    if (std::optional<Function> hook = TypeAttrFunction("__ffi_hash__", ti)) {
      Function cb = Function::FromTyped([this, depth](AnyView x) -> int64_t {
        return static_cast<int64_t>(Hash(Any(x), depth + 1));
      });
      return static_cast<uint64_t>((*hook)(v, cb).cast<int64_t>());
    }
    uint64_t key_hash = TypeInfo(ti)->type_key_hash;
    if (ti >= kTVMFFIStaticObjectEnd && (!TypeAttr("__ffi_eq__", ti).is_none() ||
                                         !TypeAttr("__ffi_compare__", ti).is_none())) {
      TVM_FFI_THROW(ValueError)
          << "RecursiveHash: type '" << TypeKey(ti)
          << "' defines __ffi_eq__ or __ffi_compare__ but not __ffi_hash__. "
          << "Add a __ffi_hash__ hook to maintain the invariant "
          << "RecursiveEq(a,b) => RecursiveHash(a)==RecursiveHash(b).";
    }
    if (ti == kTVMFFIArray || ti == kTVMFFIList) {
      std::vector<Any> items = SequenceItems(v);
      uint64_t h = StableHashCombine(key_hash, items.size());
      for (size_t i = 0; i < items.size(); ++i) {
        h = StableHashCombine(h, StableHashCombine(Hash(items[i], depth + 1), i));
      }
      return h;
    }
    if (ti == kTVMFFIMap || ti == kTVMFFIDict) {
      std::vector<std::pair<Any, Any>> items = MapItems(v);
      uint64_t h = StableHashCombine(key_hash, items.size());
      std::vector<uint64_t> entries;
      for (const auto& kv : items) {
        uint64_t k = Hash(kv.first, depth + 1);
        entries.push_back(StableHashCombine(k, Hash(kv.second, depth + 1)));
      }
      std::sort(entries.begin(), entries.end());
      for (uint64_t e : entries) h = StableHashCombine(h, e);
      return h;
    }
    uint64_t h = key_hash;
    for (const TVMFFIFieldInfo* f : AllFields(ti)) {
      if (f->flags & (kTVMFFIFieldFlagBitMaskHashOff | kTVMFFIFieldFlagBitMaskCompareOff)) continue;
      h = StableHashCombine(h, Hash(GetField(f, obj), depth + 1));
    }
    return h;
  }

  static uint64_t HashPOD(const TVMFFIAny* raw) {
    uint64_t ti = static_cast<uint64_t>(raw->type_index);
    switch (raw->type_index) {
      case kTVMFFIBool:
        return StableHashCombine(ti, uint64_t{raw->v_int64 != 0});
      case kTVMFFIInt:
        return StableHashCombine(ti, static_cast<uint64_t>(raw->v_int64));
      case kTVMFFIFloat: {
        double d = raw->v_float64;
        if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
        if (d == 0.0) d = 0.0;
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof(bits));
        return StableHashCombine(ti, bits);
      }
      case kTVMFFIDataType: {
        uint64_t h = StableHashCombine(ti, static_cast<uint64_t>(raw->v_dtype.code));
        h = StableHashCombine(h, static_cast<uint64_t>(raw->v_dtype.bits));
        return StableHashCombine(h, static_cast<uint64_t>(raw->v_dtype.lanes));
      }
      case kTVMFFIDevice: {
        uint64_t h = StableHashCombine(ti, static_cast<uint64_t>(raw->v_device.device_type));
        return StableHashCombine(h, static_cast<uint64_t>(raw->v_device.device_id));
      }
      default:
        return StableHashCombine(ti, raw->v_uint64);
    }
  }

  std::unordered_set<const TVMFFIObject*> open_;
  std::unordered_map<const TVMFFIObject*, uint64_t> memo_;
};

}  // namespace

int64_t RecursiveHash(const Any& value) { return static_cast<int64_t>(Hasher().Hash(value)); }

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.RecursiveHash", [](Any v) { return RecursiveHash(v); });
}

}  // namespace ffi
}  // namespace tvm
