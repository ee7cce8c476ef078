/*
 * The `ffi.*` container globals language bindings use to build and read Array, List, Map,
 * Dict and Shape without compiling header code of their own (the names are those of
 * apache-tvm-ffi, so bindings written for it find them).
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>

#include <memory>
#include <vector>

#include "../support/internal.h"

namespace tvm {
namespace ffi {
namespace {

/*! \brief A plain object used as a sentinel ("missing" and "keyword arguments follow"). */
ObjectRef MakeSentinel() {
  class SentinelObj : public Object {
   public:
    static int32_t RuntimeTypeIndex() { return kTVMFFIObject; }
  };
  return ObjectRef(ObjectPtr<Object>(make_object<SentinelObj>()));
}

const ObjectRef& MissingSentinel() {
  static const ObjectRef* missing = new ObjectRef(MakeSentinel());
  return *missing;
}
const ObjectRef& KwargsSentinel() {
  static const ObjectRef* kwargs = new ObjectRef(MakeSentinel());
  return *kwargs;
}

int64_t NormalizeIndex(int64_t i, size_t size) {
  int64_t n = static_cast<int64_t>(size);
  int64_t j = i < 0 ? i + n : i;
  TVM_FFI_CHECK(j >= 0 && j < n, IndexError) << "index " << i << " out of range for size " << n;
  return j;
}

template <typename MapType>
void CheckPairs(const PackedArgs& args, const char* name) {
  TVM_FFI_CHECK(args.size() % 2 == 0, ValueError)
      << name << " expects alternating keys and values, got " << args.size() << " arguments";
}

/*!
 * \brief Iteration protocol for maps: f(0) = current key, f(1) = current value,
 * f(2) = advance (returns false at the end). The functor keeps the map alive.
 */
template <typename MapType>
Function ForwardIterFunctor(MapType m) {
  auto state = std::make_shared<std::pair<MapType, typename MapType::iterator>>(m, m.begin());
  return Function::FromTyped([state](int64_t op) -> Any {
    auto& [map, it] = *state;
    TVM_FFI_CHECK(it != map.end(), IndexError) << "map iterator is exhausted";
    if (op == 0) return (*it).first;
    if (op == 1) return (*it).second;
    TVM_FFI_CHECK(op == 2, ValueError) << "unknown iterator operation " << op;
    ++it;
    return it != map.end();
  });
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  using internal::RegisterBuiltin;
  using internal::RegisterBuiltinPacked;

  RegisterBuiltin("ffi.GetInvalidObject", []() { return MissingSentinel(); });
  RegisterBuiltin("ffi.GetKwargsObject", []() { return KwargsSentinel(); });

  // Array: immutable from the binding's side (new arrays are built whole).
  RegisterBuiltinPacked("ffi.Array", [](PackedArgs args, Any* rv) {
    std::vector<Any> items(args.data(), args.data() + args.size());
    *rv = Array<Any>(items.begin(), items.end());
  });
  RegisterBuiltin("ffi.ArrayGetItem", [](const Array<Any>& a, int64_t i) {
    return a[NormalizeIndex(i, a.size())];
  });
  RegisterBuiltin("ffi.ArraySize", [](const Array<Any>& a) { return static_cast<int64_t>(a.size()); });
  RegisterBuiltin("ffi.ArrayContains", [](const Array<Any>& a, const Any& x) {
    for (const Any& item : a) {
      if (item == x) return true;
    }
    return false;
  });

  // List: mutable and shared.
  RegisterBuiltinPacked("ffi.List", [](PackedArgs args, Any* rv) {
    std::vector<Any> items(args.data(), args.data() + args.size());
    *rv = List<Any>(items.begin(), items.end());
  });
  RegisterBuiltin("ffi.ListGetItem", [](const List<Any>& l, int64_t i) {
    return l[NormalizeIndex(i, l.size())];
  });
  RegisterBuiltin("ffi.ListSize", [](const List<Any>& l) { return static_cast<int64_t>(l.size()); });
  RegisterBuiltin("ffi.ListSetItem", [](List<Any> l, int64_t i, Any v) {
    l.Set(NormalizeIndex(i, l.size()), v);
  });
  RegisterBuiltin("ffi.ListAppend", [](List<Any> l, Any v) { l.push_back(v); });
  RegisterBuiltin("ffi.ListInsert", [](List<Any> l, int64_t i, Any v) {
    int64_t n = static_cast<int64_t>(l.size());
    int64_t j = i < 0 ? std::max<int64_t>(0, i + n) : std::min(i, n);
    l.insert(l.begin() + j, v);
  });
  RegisterBuiltin("ffi.ListErase", [](List<Any> l, int64_t i) {
    l.erase(l.begin() + NormalizeIndex(i, l.size()));
  });
  RegisterBuiltin("ffi.ListClear", [](List<Any> l) { l.clear(); });
  RegisterBuiltin("ffi.ListContains", [](const List<Any>& l, const Any& x) {
    for (const Any& item : l) {
      if (item == x) return true;
    }
    return false;
  });

  // Map: immutable from the binding's side.
  RegisterBuiltinPacked("ffi.Map", [](PackedArgs args, Any* rv) {
    CheckPairs<Map<Any, Any>>(args, "ffi.Map");
    // Pair by pair, as the reference's global does: the map grows 2 -> 4 (small) -> dense, and
    // a repeated key keeps its first position while the map is small (it moves to the end only
    // when the insert turns a full small map dense). Building from the whole range at once sizes
    // the map for 4+ pairs up front (dense) and would move a repeated key to the end.
    Map<Any, Any> m;
    for (int32_t i = 0; i < args.size(); i += 2) m.Set(Any(args[i]), Any(args[i + 1]));
    *rv = std::move(m);
  });
  RegisterBuiltin("ffi.MapSize", [](const Map<Any, Any>& m) { return static_cast<int64_t>(m.size()); });
  RegisterBuiltin("ffi.MapGetItem", [](const Map<Any, Any>& m, const Any& k) { return m.at(k); });
  RegisterBuiltin("ffi.MapCount", [](const Map<Any, Any>& m, const Any& k) {
    return static_cast<int64_t>(m.count(k));
  });
  RegisterBuiltin("ffi.MapGetItemOrMissing", [](const Map<Any, Any>& m, const Any& k) -> Any {
    std::optional<Any> v = m.Get(k);
    return v.has_value() ? *v : Any(MissingSentinel());
  });
  RegisterBuiltin("ffi.MapForwardIterFunctor",
                  [](const Map<Any, Any>& m) { return ForwardIterFunctor(m); });

  // Dict: mutable and shared.
  RegisterBuiltinPacked("ffi.Dict", [](PackedArgs args, Any* rv) {
    CheckPairs<Dict<Any, Any>>(args, "ffi.Dict");
    Dict<Any, Any> d;
    for (int32_t i = 0; i < args.size(); i += 2) d.Set(Any(args[i]), Any(args[i + 1]));
    *rv = d;
  });
  RegisterBuiltin("ffi.DictSize", [](const Dict<Any, Any>& d) { return static_cast<int64_t>(d.size()); });
  RegisterBuiltin("ffi.DictGetItem", [](const Dict<Any, Any>& d, const Any& k) { return d.at(k); });
  RegisterBuiltin("ffi.DictSetItem", [](Dict<Any, Any> d, Any k, Any v) { d.Set(k, v); });
  RegisterBuiltin("ffi.DictCount", [](const Dict<Any, Any>& d, const Any& k) {
    return static_cast<int64_t>(d.count(k));
  });
  RegisterBuiltin("ffi.DictErase", [](Dict<Any, Any> d, const Any& k) { d.erase(k); });
  RegisterBuiltin("ffi.DictClear", [](Dict<Any, Any> d) { d.clear(); });
  RegisterBuiltin("ffi.DictGetItemOrMissing", [](const Dict<Any, Any>& d, const Any& k) -> Any {
    std::optional<Any> v = d.Get(k);
    return v.has_value() ? *v : Any(MissingSentinel());
  });
  RegisterBuiltin("ffi.DictForwardIterFunctor",
                  [](const Dict<Any, Any>& d) { return ForwardIterFunctor(d); });

  RegisterBuiltinPacked("ffi.Shape", [](PackedArgs args, Any* rv) {
    std::vector<int64_t> dims;
    for (int32_t i = 0; i < args.size(); ++i) dims.push_back(args[i].cast<int64_t>());
    *rv = Shape(dims.begin(), dims.end());
  });
  RegisterBuiltin("ffi.ShapeSize", [](const Shape& s) { return static_cast<int64_t>(s.size()); });
  RegisterBuiltin("ffi.ShapeGetItem", [](const Shape& s, int64_t i) {
    return s[NormalizeIndex(i, s.size())];
  });
}

}  // namespace ffi
}  // namespace tvm
