/*
 * Dict: the mutable hash map shared by all its holders (type index 76). Same layout and
 * algorithms as Map (map_base.h), but mutations are made on the object itself: when the table
 * must grow, the grown contents are moved into this same object (a small Dict may become dense
 * in place), so every holder keeps seeing one Dict.
 */
#ifndef TVM_FFI_CONTAINER_DICT_H_
#define TVM_FFI_CONTAINER_DICT_H_

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

/*! \brief The Dict object. */
class DictObj : public MapBaseObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Dict", DictObj, Object, kTVMFFIDict);
};

static_assert(sizeof(DictObj) == sizeof(MapBaseObj), "DictObj adds no fields");

/*! \brief Reference to a mutable, shared map from K to V, iterated in insertion order. */
template <typename K = Any, typename V = Any>
class Dict : public ObjectRef {
 public:
  using key_type = K;
  using mapped_type = V;
  using iterator = details::MapIterator<K, V>;
  using const_iterator = iterator;

  Dict() : ObjectRef(MapBaseObj::Empty<DictObj>()) {}
  explicit Dict(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  explicit Dict(details::UnsafeInit tag) : ObjectRef(tag) {}
  Dict(std::initializer_list<std::pair<K, V>> init)  // NOLINT(*)
      : Dict(init.begin(), init.end()) {}
  /*! \brief From a range of pairs; later duplicates overwrite earlier ones. */
  template <typename Iter, typename = std::enable_if_t<!std::is_integral_v<Iter>>>
  Dict(Iter first, Iter last) : ObjectRef(details::UnsafeInit{}) {
    std::vector<MapBaseObj::KVType> pairs = details::ToStoredPairs<K, V>(first, last);
    data_ = MapBaseObj::CreateFromRange<DictObj>(std::make_move_iterator(pairs.begin()),
                                                 std::make_move_iterator(pairs.end()));
  }
  template <typename Hash, typename Equal>
  Dict(const std::unordered_map<K, V, Hash, Equal>& init)  // NOLINT(*)
      : Dict(init.begin(), init.end()) {}
  /*! \brief Any dict can be viewed as Dict<Any, Any> (same object, mutations shared). */
  template <typename K2, typename V2,
            typename = std::enable_if_t<std::is_same_v<K, Any> && std::is_same_v<V, Any> &&
                                        !(std::is_same_v<K2, Any> && std::is_same_v<V2, Any>)>>
  Dict(const Dict<K2, V2>& other) : ObjectRef(other) {}  // NOLINT(*)

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

  // ---- writing (in place, visible to every holder) ----
  void Set(const K& key, const V& value) {
    MapBaseObj::KVType kv(details::ToStored<K>(key), details::ToStored<V>(value));
    EnsureObj();
    ObjectPtr<Object> grown = MapBaseObj::InsertMaybeReHash<DictObj>(std::move(kv), data_);
    if (grown != nullptr) Obj()->InplaceSwitchTo(std::move(grown));
  }
  void erase(const K& key) {
    if (Obj() != nullptr) Obj()->erase(AnyView(key));
  }
  void clear() {
    if (Obj() != nullptr) Obj()->clear();
  }

  DictObj* GetDictObj() const { return Obj(); }
  const DictObj* get() const { return Obj(); }
  const DictObj* operator->() const { return Obj(); }

  using ContainerType = DictObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 private:
  DictObj* Obj() const { return static_cast<DictObj*>(data_.get()); }
  void EnsureObj() {
    if (Obj() == nullptr) data_ = MapBaseObj::Empty<DictObj>();
  }
};

/*! \brief Dict<K, V> travels as a Dict object; a Map converts by copying. */
template <typename K, typename V>
struct TypeTraits<Dict<K, V>>
    : details::MapTraitsBase<Dict<K, V>, K, V, kTVMFFIDict, kTVMFFIMap> {
  static std::string TypeStr() {
    return "Dict<" + TypeTraits<K>::TypeStr() + ", " + TypeTraits<V>::TypeStr() + ">";
  }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_DICT_H_
