/*
 * Map: the immutable, copy-on-write hash map (type index 72). Layout and algorithms are in
 * map_base.h. A mutator first copies the object unless this reference is the only one; growth
 * (small 2 -> 4 -> dense, dense doubling) always produces a new object.
 */
#ifndef TVM_FFI_CONTAINER_MAP_H_
#define TVM_FFI_CONTAINER_MAP_H_

#include <tvm/ffi/container/map_base.h>

#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief The Map object. */
class MapObj : public MapBaseObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Map", MapObj, Object, kTVMFFIMap);
};

static_assert(sizeof(MapObj) == sizeof(MapBaseObj), "MapObj adds no fields");

/*!
 * \brief Reference to an immutable map from K to V (stored as Any), iterated in insertion
 * order. Reading: details::MapRefBase.
 */
template <typename K = Any, typename V = Any>
class Map : public details::MapRefBase<MapObj, K, V> {
  using Base = details::MapRefBase<MapObj, K, V>;

 public:
  Map() = default;
  explicit Map(ObjectPtr<Object> n) : Base(std::move(n)) {}
  explicit Map(details::UnsafeInit tag) : Base(tag) {}
  Map(std::initializer_list<std::pair<K, V>> init)  // NOLINT(*)
      : Base(init.begin(), init.end()) {}
  /*! \brief From a range of pairs; later duplicates overwrite earlier ones. */
  template <typename Iter, typename = std::enable_if_t<!std::is_integral_v<Iter>>>
  Map(Iter first, Iter last) : Base(first, last) {}
  template <typename Hash, typename Equal>
  Map(const std::unordered_map<K, V, Hash, Equal>& init)  // NOLINT(*)
      : Base(init.begin(), init.end()) {}
  /*! \brief Any map can be viewed as Map<Any, Any> (shares the object). */
  template <typename K2, typename V2,
            typename = std::enable_if_t<std::is_same_v<K, Any> && std::is_same_v<V, Any> &&
                                        !(std::is_same_v<K2, Any> && std::is_same_v<V2, Any>)>>
  Map(const Map<K2, V2>& other) : Base(details::ObjectUnsafe::GetPtr(other)) {}  // NOLINT(*)

  // ---- writing (copy-on-write) ----
  void Set(const K& key, const V& value) {
    MapBaseObj::KVType kv(details::ToStored<K>(key), details::ToStored<V>(value));
    CopyOnWrite();
    ObjectPtr<Object> grown = MapBaseObj::InsertMaybeReHash<MapObj>(std::move(kv), this->data_);
    if (grown != nullptr) this->data_ = std::move(grown);
  }
  void erase(const K& key) {
    if (this->count(key) == 0) return;  // nothing to do: do not copy a shared map
    CopyOnWrite()->erase(AnyView(key));
  }
  void clear() {
    if (!this->empty()) this->data_ = MapBaseObj::Empty<MapObj>();
  }

  /*! \brief The object, made unique first (so it can be written). */
  MapObj* CopyOnWrite() {
    if (this->ObjPtr() == nullptr) {
      this->data_ = MapBaseObj::Empty<MapObj>();
    } else if (!this->data_.unique()) {
      this->data_ = MapBaseObj::CopyFrom<MapObj>(this->ObjPtr());
    }
    return this->ObjPtr();
  }
  MapObj* GetMapObj() const { return this->ObjPtr(); }
};

/*! \brief Map<K, V> travels as a Map object; a Dict converts by copying. */
template <typename K, typename V>
struct TypeTraits<Map<K, V>>
    : details::MapTraitsBase<Map<K, V>, K, V, kTVMFFIMap, kTVMFFIDict> {
  static std::string TypeStr() {
    return "Map<" + TypeTraits<K>::TypeStr() + ", " + TypeTraits<V>::TypeStr() + ">";
  }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_MAP_H_
