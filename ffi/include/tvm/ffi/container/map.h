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
 * order.
 */
template <typename K = Any, typename V = Any>
class Map : public ObjectRef {
 public:
  using key_type = K;
  using mapped_type = V;
  using iterator = details::MapIterator<K, V>;
  using const_iterator = iterator;

  Map() : ObjectRef(MapBaseObj::Empty<MapObj>()) {}
  explicit Map(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  explicit Map(details::UnsafeInit tag) : ObjectRef(tag) {}
  Map(std::initializer_list<std::pair<K, V>> init)  // NOLINT(*)
      : Map(init.begin(), init.end()) {}
  /*! \brief From a range of pairs; later duplicates overwrite earlier ones. */
  template <typename Iter, typename = std::enable_if_t<!std::is_integral_v<Iter>>>
  Map(Iter first, Iter last) : ObjectRef(details::UnsafeInit{}) {
    std::vector<MapBaseObj::KVType> pairs = details::ToStoredPairs<K, V>(first, last);
    data_ = MapBaseObj::CreateFromRange<MapObj>(std::make_move_iterator(pairs.begin()),
                                                std::make_move_iterator(pairs.end()));
  }
  template <typename Hash, typename Equal>
  Map(const std::unordered_map<K, V, Hash, Equal>& init)  // NOLINT(*)
      : Map(init.begin(), init.end()) {}
  /*! \brief Any map can be viewed as Map<Any, Any> (shares the object). */
  template <typename K2, typename V2,
            typename = std::enable_if_t<std::is_same_v<K, Any> && std::is_same_v<V, Any> &&
                                        !(std::is_same_v<K2, Any> && std::is_same_v<V2, Any>)>>
  Map(const Map<K2, V2>& other) : ObjectRef(other) {}  // NOLINT(*)

  // ---- reading ----
  size_t size() const { return Obj() == nullptr ? 0 : Obj()->size(); }
  bool empty() const { return size() == 0; }
  size_t count(const K& key) const { return Obj() == nullptr ? 0 : Obj()->count(AnyView(key)); }
  /*! \brief The value of `key` (KeyError when absent). */
  V at(const K& key) const {
    if (Obj() == nullptr) TVM_FFI_THROW(KeyError) << "key is not in Map";
    return details::StoredAs<V>(Obj()->at(AnyView(key)).raw());
  }
  V operator[](const K& key) const { return at(key); }
  std::optional<V> Get(const K& key) const {
    if (Obj() == nullptr) return std::nullopt;
    MapBaseObj::iterator it = Obj()->find(AnyView(key));
    if (it == Obj()->end()) return std::nullopt;
    return details::StoredAs<V>(it->second.raw());
  }
  iterator find(const K& key) const {
    return Obj() == nullptr ? iterator() : iterator(Obj()->find(AnyView(key)));
  }
  iterator begin() const { return Obj() == nullptr ? iterator() : iterator(Obj()->begin()); }
  iterator end() const { return Obj() == nullptr ? iterator() : iterator(Obj()->end()); }

  // ---- writing (copy-on-write) ----
  void Set(const K& key, const V& value) {
    MapBaseObj::KVType kv(details::ToStored<K>(key), details::ToStored<V>(value));
    CopyOnWrite();
    ObjectPtr<Object> grown = MapBaseObj::InsertMaybeReHash<MapObj>(std::move(kv), data_);
    if (grown != nullptr) data_ = std::move(grown);
  }
  void erase(const K& key) {
    if (count(key) == 0) return;  // nothing to do: do not copy a shared map
    CopyOnWrite()->erase(AnyView(key));
  }
  void clear() {
    if (!empty()) data_ = MapBaseObj::Empty<MapObj>();
  }

  /*! \brief The object, made unique first (so it can be written). */
  MapObj* CopyOnWrite() {
    if (Obj() == nullptr) {
      data_ = MapBaseObj::Empty<MapObj>();
    } else if (!data_.unique()) {
      data_ = MapBaseObj::CopyFrom<MapObj>(Obj());
    }
    return Obj();
  }
  MapObj* GetMapObj() const { return Obj(); }
  const MapObj* get() const { return Obj(); }
  const MapObj* operator->() const { return Obj(); }

  using ContainerType = MapObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 private:
  MapObj* Obj() const { return static_cast<MapObj*>(data_.get()); }
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
