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

/*!
 * \brief Reference to a mutable, shared map from K to V, iterated in insertion order.
 * Reading: details::MapRefBase.
 */
template <typename K = Any, typename V = Any>
class Dict : public details::MapRefBase<DictObj, K, V> {
  using Base = details::MapRefBase<DictObj, K, V>;

 public:
  Dict() = default;
  explicit Dict(ObjectPtr<Object> n) : Base(std::move(n)) {}
  explicit Dict(details::UnsafeInit tag) : Base(tag) {}
  Dict(std::initializer_list<std::pair<K, V>> init)  // NOLINT(*)
      : Base(init.begin(), init.end()) {}
  /*! \brief From a range of pairs; later duplicates overwrite earlier ones. */
  template <typename Iter, typename = std::enable_if_t<!std::is_integral_v<Iter>>>
  Dict(Iter first, Iter last) : Base(first, last) {}
  template <typename Hash, typename Equal>
  Dict(const std::unordered_map<K, V, Hash, Equal>& init)  // NOLINT(*)
      : Base(init.begin(), init.end()) {}
  /*! \brief Any dict can be viewed as Dict<Any, Any> (same object, mutations shared). */
  template <typename K2, typename V2,
            typename = std::enable_if_t<std::is_same_v<K, Any> && std::is_same_v<V, Any> &&
                                        !(std::is_same_v<K2, Any> && std::is_same_v<V2, Any>)>>
  Dict(const Dict<K2, V2>& other) : Base(details::ObjectUnsafe::GetPtr(other)) {}  // NOLINT(*)

  // ---- writing (in place, visible to every holder) ----
  void Set(const K& key, const V& value) {
    MapBaseObj::KVType kv(details::ToStored<K>(key), details::ToStored<V>(value));
    if (this->ObjPtr() == nullptr) this->data_ = MapBaseObj::Empty<DictObj>();
    ObjectPtr<Object> grown = MapBaseObj::InsertMaybeReHash<DictObj>(std::move(kv), this->data_);
    if (grown != nullptr) this->ObjPtr()->InplaceSwitchTo(std::move(grown));
  }
  void erase(const K& key) {
    if (this->ObjPtr() != nullptr) this->ObjPtr()->erase(AnyView(key));
  }
  void clear() {
    if (this->ObjPtr() != nullptr) this->ObjPtr()->clear();
  }

  DictObj* GetDictObj() const { return this->ObjPtr(); }
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
