/*
 * RecursiveEq/Lt/Le/Gt/Ge (extra/dataclass.h): three-way comparison by value. Sequences
 * compare lexicographically, maps by key lookup (equality only), reflected objects field by
 * field (CompareOff fields skipped), with `__ffi_eq__` / `__ffi_compare__` hooks. A pair of
 * objects met again while being compared (a cycle) counts as equal for ==, and is an error for
 * orderings, as in apache-tvm-ffi.
 */
#include <tvm/ffi/extra/dataclass.h>

#include <cmath>
#include <cstring>
#include <set>
#include <utility>

#include "../support/internal.h"
#include "reflection_util.h"

namespace tvm {
namespace ffi {
namespace {
using namespace extra_detail;  // NOLINT(build/namespaces)

constexpr int kMaxDepth = 1000;

/*! \brief Signals "these maps differ" from deep inside an ordering (no order exists). */
struct MapOrderError {};

class Comparer {
 public:
  explicit Comparer(bool eq_only) : eq_only_(eq_only) {}

  int32_t Compare(const Any& lhs, const Any& rhs, int depth = 0) {
    int32_t lt = lhs.type_index(), rt = rhs.type_index();
    if (lt == kTVMFFINone || rt == kTVMFFINone) {
      return (lt == kTVMFFINone ? 0 : 1) - (rt == kTVMFFINone ? 0 : 1);
    }
    if ((IsStr(lt) && IsStr(rt)) || (IsBytes(lt) && IsBytes(rt))) {
      int c = BytesView(lhs).compare(BytesView(rhs));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    if (lt != rt) {
      if (eq_only_) return 1;
      TVM_FFI_THROW(TypeError) << "Cannot compare values of different types: " << TypeKey(lt)
                               << " vs " << TypeKey(rt);
    }
    if (lt < kTVMFFIStaticObjectBegin) return ComparePOD(lhs, rhs);
    const TVMFFIObject* a = ObjectOf(lhs);
    const TVMFFIObject* b = ObjectOf(rhs);
    if (a == b) return 0;
    if (a == nullptr) return -1;
    if (b == nullptr) return 1;
    if (lt == kTVMFFIShape) {
      Shape x = lhs.cast<Shape>(), y = rhs.cast<Shape>();
      for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
      }
      return x.size() == y.size() ? 0 : (x.size() < y.size() ? -1 : 1);
    }
    auto key = std::make_pair(a, b);
    if (open_.count(key)) {
      if (eq_only_) return 0;
      TVM_FFI_THROW(ValueError) << "RecursiveCompare: cyclic reference detected in ordering";
    }
    if (depth > kMaxDepth) {
      TVM_FFI_THROW(ValueError) << "RecursiveCompare: maximum nesting depth (" << kMaxDepth
                                << ") exceeded";
    }
    open_.insert(key);
    int32_t result;
    try {
      result = CompareObjects(lhs, rhs, lt, depth);
    } catch (...) {
      open_.erase(key);
      throw;
    }
    open_.erase(key);
    return result;
  }

 private:
  int32_t CompareObjects(const Any& lhs, const Any& rhs, int32_t ti, int depth) {
    const TVMFFIObject* a = ObjectOf(lhs);
    const TVMFFIObject* b = ObjectOf(rhs);
    if (ti == kTVMFFIArray || ti == kTVMFFIList) {
      std::vector<Any> x = SequenceItems(lhs), y = SequenceItems(rhs);
      for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        int32_t c = Compare(x[i], y[i], depth + 1);
        if (c != 0) return c;
      }
      return x.size() == y.size() ? 0 : (x.size() < y.size() ? -1 : 1);
    }
    if (ti == kTVMFFIMap || ti == kTVMFFIDict) {
      std::vector<std::pair<Any, Any>> x = MapItems(lhs);
      size_t other_size = ti == kTVMFFIMap ? rhs.cast<Map<Any, Any>>().size()
                                           : rhs.cast<Dict<Any, Any>>().size();
      if (x.size() != other_size) return MapMismatch();
      for (const auto& kv : x) {
        std::optional<Any> other = ti == kTVMFFIMap ? rhs.cast<Map<Any, Any>>().Get(kv.first)
                                                    : rhs.cast<Dict<Any, Any>>().Get(kv.first);
        if (!other.has_value()) return MapMismatch();
        int32_t c = Compare(kv.second, *other, depth + 1);
        if (c != 0) return eq_only_ ? c : MapMismatch();
      }
      return 0;
    }
    if (ti >= kTVMFFIStaticObjectEnd) {
      if (eq_only_) {
        if (std::optional<Function> hook = TypeAttrFunction("__ffi_eq__", ti)) {
          Function cb = Function::FromTyped([this, depth](AnyView x, AnyView y) -> bool {
            return Compare(Any(x), Any(y), depth + 1) == 0;
          });
          return (*hook)(lhs, rhs, cb).cast<bool>() ? 0 : 1;
        }
      }
      if (std::optional<Function> hook = TypeAttrFunction("__ffi_compare__", ti)) {
        Function cb = Function::FromTyped([this, depth](AnyView x, AnyView y) -> int32_t {
          return Compare(Any(x), Any(y), depth + 1);
        });
        return (*hook)(lhs, rhs, cb).cast<int32_t>();
      }
    }
    for (const TVMFFIFieldInfo* f : AllFields(ti)) {
      if (f->flags & kTVMFFIFieldFlagBitMaskCompareOff) continue;
      int32_t c = Compare(GetField(f, a), GetField(f, b), depth + 1);
      if (c != 0) return c;
    }
    return 0;
  }

  int32_t MapMismatch() {
    if (eq_only_) return 1;
    TVM_FFI_THROW(TypeError) << "Cannot order Map/Dict values";
  }

  int32_t ComparePOD(const Any& lhs, const Any& rhs) {
    const TVMFFIAny* x = lhs.raw();
    const TVMFFIAny* y = rhs.raw();
    auto sign = [](auto a, auto b) -> int32_t { return a < b ? -1 : (b < a ? 1 : 0); };
    switch (x->type_index) {
      case kTVMFFIBool:
        return static_cast<int32_t>(x->v_int64 != 0) - static_cast<int32_t>(y->v_int64 != 0);
      case kTVMFFIInt:
        return sign(x->v_int64, y->v_int64);
      case kTVMFFIFloat: {
        double a = x->v_float64, b = y->v_float64;
        if (std::isnan(a) || std::isnan(b)) {
          if (eq_only_) return std::isnan(a) && std::isnan(b) ? 0 : 1;
          TVM_FFI_THROW(TypeError) << "Cannot order NaN values";
        }
        return sign(a, b);
      }
      case kTVMFFIDataType: {
        DLDataType a = x->v_dtype, b = y->v_dtype;
        if (a.code != b.code) return sign(a.code, b.code);
        if (a.bits != b.bits) return sign(a.bits, b.bits);
        return sign(a.lanes, b.lanes);
      }
      case kTVMFFIDevice: {
        DLDevice a = x->v_device, b = y->v_device;
        if (a.device_type != b.device_type) return sign(a.device_type, b.device_type);
        return sign(a.device_id, b.device_id);
      }
      default:
        if (x->zero_padding == y->zero_padding && x->v_int64 == y->v_int64) return 0;
        if (eq_only_) return 1;
        TVM_FFI_THROW(TypeError) << "Cannot order values of type " << TypeKey(x->type_index);
    }
  }

  bool eq_only_;
  std::set<std::pair<const TVMFFIObject*, const TVMFFIObject*>> open_;
};

}  // namespace

bool RecursiveEq(const Any& lhs, const Any& rhs) { return Comparer(true).Compare(lhs, rhs) == 0; }
bool RecursiveLt(const Any& lhs, const Any& rhs) { return Comparer(false).Compare(lhs, rhs) < 0; }
bool RecursiveLe(const Any& lhs, const Any& rhs) { return Comparer(false).Compare(lhs, rhs) <= 0; }
bool RecursiveGt(const Any& lhs, const Any& rhs) { return Comparer(false).Compare(lhs, rhs) > 0; }
bool RecursiveGe(const Any& lhs, const Any& rhs) { return Comparer(false).Compare(lhs, rhs) >= 0; }

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.RecursiveEq", [](Any a, Any b) { return RecursiveEq(a, b); });
  internal::RegisterBuiltin("ffi.RecursiveLt", [](Any a, Any b) { return RecursiveLt(a, b); });
  internal::RegisterBuiltin("ffi.RecursiveLe", [](Any a, Any b) { return RecursiveLe(a, b); });
  internal::RegisterBuiltin("ffi.RecursiveGt", [](Any a, Any b) { return RecursiveGt(a, b); });
  internal::RegisterBuiltin("ffi.RecursiveGe", [](Any a, Any b) { return RecursiveGe(a, b); });
}

}  // namespace ffi
}  // namespace tvm
