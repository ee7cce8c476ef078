/*
 * List: the mutable, shared sequence (type index 75).
 *
 * Layout (ABI): header + TVMFFISeqCell at +24 (object size 56). The slots live in a separate
 * block (`data`, may be NULL when capacity is 0) released through `data_deleter`, so the
 * object never moves when it grows and every holder sees every mutation (no copy-on-write).
 * Other binaries may reallocate the block of a list we created and vice versa; each block is
 * always freed by the `data_deleter` stored next to it.
 */
#ifndef TVM_FFI_CONTAINER_LIST_H_
#define TVM_FFI_CONTAINER_LIST_H_

#include <tvm/ffi/container/seq_base.h>

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief The List object: SeqBaseObj with out-of-line, growable storage. */
class ListObj : public SeqBaseObj {
 public:
  static constexpr int64_t kInitCapacity = 4;
  static constexpr int64_t kGrowthFactor = 2;

  /*! \brief A new empty list with room for `capacity` elements (no block when 0). */
  static ObjectPtr<ListObj> Empty(int64_t capacity = 0) {
    if (capacity < 0) TVM_FFI_THROW(ValueError) << "negative List capacity " << capacity;
    ObjectPtr<ListObj> p = make_object<ListObj>();
    p->seq.data = capacity == 0 ? nullptr : AllocSlots(capacity);
    p->seq.capacity = capacity;
    p->seq.data_deleter = FreeSlots;
    return p;
  }

  /*!
   * \brief Makes room for at least `n` elements. The elements move (bitwise) into a block of
   * this binary; the old block goes back through whichever deleter came with it.
   */
  void Reserve(int64_t n) {
    if (n <= seq.capacity) return;
    void* block = AllocSlots(n);
    if (seq.size > 0) {
      std::memcpy(block, seq.data, static_cast<size_t>(seq.size) * sizeof(Any));
    }
    if (seq.data != nullptr && seq.data_deleter != nullptr) seq.data_deleter(seq.data);
    seq.data = block;
    seq.capacity = n;
    seq.data_deleter = FreeSlots;
  }
  /*! \brief Makes room for `extra` more elements, growing geometrically. */
  void ReserveExtra(int64_t extra) {
    if (seq.size + extra <= seq.capacity) return;
    Reserve(std::max({seq.capacity * kGrowthFactor, seq.size + extra, kInitCapacity}));
  }

  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.List", ListObj, Object, kTVMFFIList);

 private:
  static void* AllocSlots(int64_t n) {
    return ::operator new(static_cast<size_t>(n) * sizeof(Any));
  }
  static void FreeSlots(void* data) { ::operator delete(data); }
};

static_assert(sizeof(ListObj) == 56, "List object is header + TVMFFISeqCell");

/*! \brief Reference to a mutable sequence of T shared by all its holders. */
template <typename T = Any>
class List : public ObjectRef {
 public:
  using value_type = T;
  using iterator = details::SeqIterator<T>;
  using const_iterator = iterator;
  using reverse_iterator = std::reverse_iterator<iterator>;

  List() : ObjectRef(ListObj::Empty()) {}
  explicit List(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  explicit List(details::UnsafeInit tag) : ObjectRef(tag) {}
  List(std::initializer_list<T> init) : List() { Append(init.begin(), init.end()); }  // NOLINT
  List(const std::vector<T>& init) : List() { Append(init.begin(), init.end()); }     // NOLINT
  template <typename Iter, typename = std::enable_if_t<!std::is_integral_v<Iter>>>
  List(Iter first, Iter last) : List() {
    Append(first, last);
  }
  List(size_t n, const T& value) : ObjectRef(ListObj::Empty(static_cast<int64_t>(n))) {
    for (size_t i = 0; i < n; ++i) Obj()->PushBackNoGrow(details::ToStored<T>(value));
  }
  /*! \brief Any list can be viewed as List<Any> (same object, mutations shared). */
  template <typename U, typename = std::enable_if_t<std::is_same_v<T, Any> &&
                                                    !std::is_same_v<U, Any>>>
  List(const List<U>& other) : ObjectRef(other) {}  // NOLINT(*)

  // ---- reading ----
  size_t size() const { return GetListObj() == nullptr ? 0 : GetListObj()->size(); }
  size_t capacity() const { return GetListObj() == nullptr ? 0 : GetListObj()->capacity(); }
  bool empty() const { return size() == 0; }
  T operator[](int64_t i) const { return details::StoredAs<T>(Obj()->at(i).raw()); }
  T at(int64_t i) const { return (*this)[i]; }
  T front() const { return details::StoredAs<T>(Obj()->front().raw()); }
  T back() const { return details::StoredAs<T>(Obj()->back().raw()); }
  iterator begin() const { return iterator(GetListObj() == nullptr ? nullptr : Obj()->begin()); }
  iterator end() const { return iterator(GetListObj() == nullptr ? nullptr : Obj()->end()); }
  reverse_iterator rbegin() const { return reverse_iterator(end()); }
  reverse_iterator rend() const { return reverse_iterator(begin()); }

  // ---- writing (in place, visible to every holder) ----
  void push_back(const T& item) {
    Any value = details::ToStored<T>(item);  // before growing: `item` may live in this list
    ListObj* p = Obj();
    p->ReserveExtra(1);
    p->PushBackNoGrow(std::move(value));
  }
  template <typename... Args>
  void emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
  }
  void pop_back() { Obj()->PopBack(); }
  void Set(int64_t i, const T& value) { Obj()->SetItem(i, details::ToStored<T>(value)); }
  void insert(iterator position, const T& value) {
    const T* first = &value;
    insert(position, first, first + 1);
  }
  template <typename Iter>
  void insert(iterator position, Iter first, Iter last) {
    int64_t idx = position - begin();
    int64_t count = static_cast<int64_t>(std::distance(first, last));
    if (count == 0) return;
    std::vector<Any> values;  // convert before growing (the range may alias this list)
    values.reserve(static_cast<size_t>(count));
    for (; first != last; ++first) values.push_back(details::ToStored<T>(*first));
    ListObj* p = Obj();
    p->ReserveExtra(count);
    p->InsertNoGrow(idx, std::move(values));
  }
  void erase(iterator position) {
    int64_t idx = position - begin();
    Obj()->EraseRange(idx, idx + 1);
  }
  void erase(iterator first, iterator last) { Obj()->EraseRange(first - begin(), last - begin()); }
  void clear() {
    if (GetListObj() != nullptr) GetListObj()->clear();
  }
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "cannot resize a List to " << n;
    ListObj* p = Obj();
    if (n > p->seq.size) {
      p->Reserve(n);
      p->GrowTo(n);
    } else {
      p->ShrinkTo(n);
    }
  }
  void reserve(int64_t n) { Obj()->Reserve(n); }

  ListObj* GetListObj() const { return static_cast<ListObj*>(data_.get()); }
  const ListObj* get() const { return GetListObj(); }
  const ListObj* operator->() const { return GetListObj(); }

  using ContainerType = ListObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 private:
  ListObj* Obj() const {
    if (GetListObj() == nullptr) TVM_FFI_THROW(IndexError) << "null List";
    return GetListObj();
  }
  template <typename Iter>
  void Append(Iter first, Iter last) {
    ListObj* p = Obj();
    p->Reserve(static_cast<int64_t>(std::distance(first, last)));
    for (; first != last; ++first) p->PushBackNoGrow(details::ToStored<T>(*first));
  }
};

/*! \brief List<T> travels as a List object; an Array converts by copying. */
template <typename T>
struct TypeTraits<List<T>> : details::SeqTraitsBase<List<T>, T, kTVMFFIList, kTVMFFIArray> {
  static std::string TypeStr() { return "List<" + TypeTraits<T>::TypeStr() + ">"; }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_LIST_H_
