/*
 * Array: the immutable, copy-on-write sequence (type index 71).
 *
 * Layout (ABI): header, TVMFFISeqCell at +24, then `capacity` TVMFFIAny slots inline at +56;
 * `data` points at +56 and `data_deleter` is NULL, so the whole array is one allocation freed by
 * the object's deleter. Growing therefore always means a new object (capacity doubles, starting
 * at 4). A reference that is the only one may mutate in place, and other binaries do exactly
 * that to arrays we create, so nothing here may cache anything about the storage.
 */
#ifndef TVM_FFI_CONTAINER_ARRAY_H_
#define TVM_FFI_CONTAINER_ARRAY_H_

#include <tvm/ffi/container/seq_base.h>

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief The Array object: SeqBaseObj whose slots follow it in the same allocation. */
class ArrayObj : public SeqBaseObj {
 public:
  static constexpr int64_t kInitCapacity = 4;
  static constexpr int64_t kGrowthFactor = 2;

  /*! \brief A new empty array with room for `capacity` elements. */
  static ObjectPtr<ArrayObj> Empty(int64_t capacity = kInitCapacity) {
    if (capacity < 0) TVM_FFI_THROW(ValueError) << "negative Array capacity " << capacity;
    ObjectPtr<ArrayObj> p =
        make_inplace_array_object<ArrayObj, Any>(static_cast<size_t>(capacity));
    p->seq.data = reinterpret_cast<char*>(p.get()) + sizeof(ArrayObj);
    p->seq.capacity = capacity;
    return p;
  }
  /*! \brief A new array holding copies of `from`'s elements, with room for `capacity`. */
  static ObjectPtr<ArrayObj> CopyFrom(int64_t capacity, const SeqBaseObj* from) {
    ObjectPtr<ArrayObj> p = Empty(std::max<int64_t>(capacity, from->seq.size));
    for (const Any& v : *from) p->PushBackNoGrow(v);
    return p;
  }
  /*!
   * \brief A new array that takes over `from`'s elements (which must be uniquely owned);
   * `from` is left empty, so dropping it later releases nothing twice.
   */
  static ObjectPtr<ArrayObj> MoveFrom(int64_t capacity, SeqBaseObj* from) {
    ObjectPtr<ArrayObj> p = Empty(std::max<int64_t>(capacity, from->seq.size));
    std::memcpy(static_cast<void*>(p->MutableData()), from->seq.data,
                static_cast<size_t>(from->seq.size) * sizeof(Any));
    p->seq.size = from->seq.size;
    from->seq.size = 0;
    return p;
  }

  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Array", ArrayObj, Object, kTVMFFIArray);
};

static_assert(sizeof(ArrayObj) == 56, "Array elements must start at +56");

/*!
 * \brief Reference to an immutable sequence of T (stored as Any). Mutators copy the object first
 * unless this reference is the only one (copy-on-write).
 */
template <typename T = Any>
class Array : public ObjectRef {
 public:
  using value_type = T;
  using iterator = details::SeqIterator<T>;
  using const_iterator = iterator;
  using reverse_iterator = std::reverse_iterator<iterator>;

  Array() : ObjectRef(ArrayObj::Empty()) {}
  explicit Array(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  explicit Array(details::UnsafeInit tag) : ObjectRef(tag) {}
  Array(std::initializer_list<T> init) : ObjectRef(details::UnsafeInit{}) {  // NOLINT(*)
    Assign(init.begin(), init.end());
  }
  Array(const std::vector<T>& init) : ObjectRef(details::UnsafeInit{}) {  // NOLINT(*)
    Assign(init.begin(), init.end());
  }
  template <typename Iter, typename = std::enable_if_t<!std::is_integral_v<Iter>>>
  Array(Iter first, Iter last) : ObjectRef(details::UnsafeInit{}) {
    Assign(first, last);
  }
  /*! \brief `n` copies of `value`. */
  Array(size_t n, const T& value) : ObjectRef(ArrayObj::Empty(static_cast<int64_t>(n))) {
    ArrayObj* p = GetArrayObj();
    for (size_t i = 0; i < n; ++i) p->PushBackNoGrow(details::ToStored<T>(value));
  }
  /*! \brief Any array can be viewed as Array<Any> (shares the object). */
  template <typename U, typename = std::enable_if_t<std::is_same_v<T, Any> &&
                                                    !std::is_same_v<U, Any>>>
  Array(const Array<U>& other) : ObjectRef(other) {}  // NOLINT(*)

  // ---- reading ----
  size_t size() const { return GetArrayObj() == nullptr ? 0 : GetArrayObj()->size(); }
  size_t capacity() const { return GetArrayObj() == nullptr ? 0 : GetArrayObj()->capacity(); }
  bool empty() const { return size() == 0; }
  /*! \brief Element i (IndexError when out of range). */
  T operator[](int64_t i) const { return details::StoredAs<T>(Obj()->at(i).raw()); }
  T at(int64_t i) const { return (*this)[i]; }
  T front() const { return details::StoredAs<T>(Obj()->front().raw()); }
  T back() const { return details::StoredAs<T>(Obj()->back().raw()); }
  iterator begin() const { return iterator(GetArrayObj() == nullptr ? nullptr : Obj()->begin()); }
  iterator end() const { return iterator(GetArrayObj() == nullptr ? nullptr : Obj()->end()); }
  reverse_iterator rbegin() const { return reverse_iterator(end()); }
  reverse_iterator rend() const { return reverse_iterator(begin()); }

  // ---- writing (copy-on-write) ----
  void push_back(const T& item) {
    Any value = details::ToStored<T>(item);  // before COW: `item` may live in this array
    CopyOnWrite(1)->PushBackNoGrow(std::move(value));
  }
  template <typename... Args>
  void emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
  }
  void pop_back() { CopyOnWrite()->PopBack(); }
  void Set(int64_t i, const T& value) {
    Any stored = details::ToStored<T>(value);
    CopyOnWrite()->SetItem(i, std::move(stored));
  }
  void insert(iterator position, const T& value) {
    const T* first = &value;
    insert(position, first, first + 1);
  }
  template <typename Iter>
  void insert(iterator position, Iter first, Iter last) {
    int64_t idx = position - begin();
    int64_t count = static_cast<int64_t>(std::distance(first, last));
    if (count == 0) return;
    std::vector<Any> values;  // convert before COW (the range may alias this array)
    values.reserve(static_cast<size_t>(count));
    for (; first != last; ++first) values.push_back(details::ToStored<T>(*first));
    CopyOnWrite(count)->InsertNoGrow(idx, std::move(values));
  }
  void erase(iterator position) {
    int64_t idx = position - begin();
    CopyOnWrite()->EraseRange(idx, idx + 1);
  }
  void erase(iterator first, iterator last) {
    int64_t a = first - begin(), b = last - begin();
    if (a == b) return;
    CopyOnWrite()->EraseRange(a, b);
  }
  void clear() {
    if (empty()) return;
    if (data_.unique()) {
      GetArrayObj()->clear();
    } else {
      data_ = ArrayObj::Empty(static_cast<int64_t>(capacity()));
    }
  }
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "cannot resize an Array to " << n;
    int64_t cur = static_cast<int64_t>(size());
    if (n > cur) {
      CopyOnWrite(n - cur)->GrowTo(n);
    } else if (n < cur) {
      CopyOnWrite()->ShrinkTo(n);
    }
  }
  void reserve(int64_t n) {
    if (GetArrayObj() == nullptr || n > static_cast<int64_t>(capacity())) SwitchTo(n);
  }

  /*! \brief The object, made unique first (so it can be written). */
  ArrayObj* CopyOnWrite() {
    if (GetArrayObj() == nullptr) return SwitchTo(ArrayObj::kInitCapacity);
    if (!data_.unique()) return SwitchTo(static_cast<int64_t>(capacity()));
    return GetArrayObj();
  }
  ArrayObj* GetArrayObj() const { return static_cast<ArrayObj*>(data_.get()); }
  const ArrayObj* get() const { return GetArrayObj(); }
  const ArrayObj* operator->() const { return GetArrayObj(); }

  using ContainerType = ArrayObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 private:
  const ArrayObj* Obj() const {
    if (GetArrayObj() == nullptr) TVM_FFI_THROW(IndexError) << "null Array";
    return GetArrayObj();
  }
  /*! \brief The object, unique and with room for `extra` more elements. */
  ArrayObj* CopyOnWrite(int64_t extra) {
    ArrayObj* p = GetArrayObj();
    if (p == nullptr) return SwitchTo(std::max(ArrayObj::kInitCapacity, extra));
    if (p->seq.size + extra <= p->seq.capacity) return CopyOnWrite();
    return SwitchTo(std::max(p->seq.capacity * ArrayObj::kGrowthFactor, p->seq.size + extra));
  }
  /*! \brief Replaces the object with a new one of `capacity` holding the same elements. */
  ArrayObj* SwitchTo(int64_t capacity) {
    ArrayObj* p = GetArrayObj();
    if (p == nullptr) {
      data_ = ArrayObj::Empty(capacity);
    } else if (data_.unique()) {
      data_ = ArrayObj::MoveFrom(capacity, p);
    } else {
      data_ = ArrayObj::CopyFrom(capacity, p);
    }
    return GetArrayObj();
  }
  template <typename Iter>
  void Assign(Iter first, Iter last) {
    int64_t n = static_cast<int64_t>(std::distance(first, last));
    data_ = ArrayObj::Empty(n);
    ArrayObj* p = GetArrayObj();
    for (; first != last; ++first) p->PushBackNoGrow(details::ToStored<T>(*first));
  }
};

/*! \brief Array<T> travels as an Array object; a List converts by copying. */
template <typename T>
struct TypeTraits<Array<T>>
    : details::SeqTraitsBase<Array<T>, T, kTVMFFIArray, kTVMFFIList> {
  static std::string TypeStr() { return "Array<" + TypeTraits<T>::TypeStr() + ">"; }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_ARRAY_H_
