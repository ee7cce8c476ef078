/*
 * The object layout shared by Array (type index 71) and List (type index 75): the 24-byte object
 * header followed by a TVMFFISeqCell {data, size, capacity, data_deleter} at +24. The first
 * `size` slots of `data` are owned Anys.
 *
 * Both layouts are read and mutated by header code compiled into other binaries, so every
 * helper here works from the cell alone and never assumes who allocated `data`.
 *
 * Also holds the small helpers every container uses to turn a stored Any back into a typed
 * value (details::StoredAs) and to walk a sequence as typed values (details::SeqIterator).
 */
#ifndef TVM_FFI_CONTAINER_SEQ_BASE_H_
#define TVM_FFI_CONTAINER_SEQ_BASE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

// The containers reinterpret TVMFFIAny storage as Any; that is only sound if Any is exactly the
// C struct (no vtable, no extra state).
static_assert(sizeof(Any) == sizeof(TVMFFIAny) && alignof(Any) == alignof(TVMFFIAny),
              "Any must be layout-identical to TVMFFIAny");
static_assert(std::is_standard_layout_v<Any>, "Any must be standard layout");

namespace details {

/*!
 * \brief Reads a stored (owned) value as T, throwing TypeError if it is not one.
 * Containers check on insertion, but List and Dict are shared and mutable, so another holder may
 * have stored something else since; the check keeps a wrong element an error, not a bad cast.
 */
template <typename T>
T StoredAs(const TVMFFIAny* value) {
  if constexpr (std::is_same_v<T, Any>) {
    return Any(AnyView::FromRaw(*value));
  } else if constexpr (std::is_same_v<T, AnyView>) {
    return AnyView::FromRaw(*value);
  } else {
    return CastOrThrow<T>(value);
  }
}

/*! \brief Converts a C++ value into the owned form a container stores. */
template <typename T, typename U>
Any ToStored(U&& value) {
  if constexpr (std::is_same_v<std::decay_t<U>, T> || std::is_same_v<T, Any>) {
    return Any(std::forward<U>(value));
  } else {
    return Any(T(std::forward<U>(value)));
  }
}

/*!
 * \brief Random-access iterator over stored Anys that yields typed values (by value, as the
 * storage holds Anys, not Ts).
 */
template <typename T>
class SeqIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;

  SeqIterator() = default;
  explicit SeqIterator(const Any* ptr) : ptr_(ptr) {}

  T operator*() const { return StoredAs<T>(ptr_->raw()); }
  T operator[](difference_type n) const { return StoredAs<T>(ptr_[n].raw()); }
  SeqIterator& operator++() { ++ptr_; return *this; }
  SeqIterator& operator--() { --ptr_; return *this; }
  SeqIterator operator++(int) { SeqIterator out = *this; ++ptr_; return out; }
  SeqIterator operator--(int) { SeqIterator out = *this; --ptr_; return out; }
  SeqIterator& operator+=(difference_type n) { ptr_ += n; return *this; }
  SeqIterator& operator-=(difference_type n) { ptr_ -= n; return *this; }
  SeqIterator operator+(difference_type n) const { return SeqIterator(ptr_ + n); }
  SeqIterator operator-(difference_type n) const { return SeqIterator(ptr_ - n); }
  difference_type operator-(const SeqIterator& other) const { return ptr_ - other.ptr_; }
  bool operator==(const SeqIterator& other) const { return ptr_ == other.ptr_; }
  bool operator!=(const SeqIterator& other) const { return ptr_ != other.ptr_; }
  bool operator<(const SeqIterator& other) const { return ptr_ < other.ptr_; }
  bool operator>(const SeqIterator& other) const { return ptr_ > other.ptr_; }
  bool operator<=(const SeqIterator& other) const { return ptr_ <= other.ptr_; }
  bool operator>=(const SeqIterator& other) const { return ptr_ >= other.ptr_; }

  /*! \brief The stored slot (for code that wants the untyped value). */
  const Any* raw() const { return ptr_; }

 private:
  const Any* ptr_ = nullptr;
};

}  // namespace details

/*!
 * \brief Common base of ArrayObj and ListObj. Has no type index of its own.
 *
 * Element operations keep to one rule: slots [0, size) hold constructed Anys and nothing else
 * does. Moves between slots are plain 16-byte copies (an Any is trivially relocatable: moving
 * it only transfers the reference it holds), which is also what other binaries assume.
 */
class SeqBaseObj : public Object {
 public:
  /*! \brief The ABI cell at +24. */
  TVMFFISeqCell seq;

  SeqBaseObj() {
    seq.data = nullptr;
    seq.size = 0;
    seq.capacity = 0;
    seq.data_deleter = nullptr;
  }
  ~SeqBaseObj() {
    DestroyRange(0, seq.size);
    if (seq.data_deleter != nullptr && seq.data != nullptr) seq.data_deleter(seq.data);
  }

  size_t size() const { return static_cast<size_t>(seq.size); }
  size_t capacity() const { return static_cast<size_t>(seq.capacity); }
  bool empty() const { return seq.size == 0; }

  const Any* begin() const { return static_cast<const Any*>(seq.data); }
  const Any* end() const { return begin() + seq.size; }

  /*! \brief Bounds-checked element access (IndexError). */
  const Any& at(int64_t i) const {
    CheckIndex(i);
    return begin()[i];
  }
  const Any& operator[](int64_t i) const { return at(i); }
  const Any& front() const {
    if (seq.size == 0) TVM_FFI_THROW(IndexError) << "front() of an empty sequence";
    return begin()[0];
  }
  const Any& back() const {
    if (seq.size == 0) TVM_FFI_THROW(IndexError) << "back() of an empty sequence";
    return begin()[seq.size - 1];
  }

  // ---- mutation, all on the existing storage (callers ensure capacity) ----

  /*! \brief Replaces element i. */
  void SetItem(int64_t i, Any value) {
    CheckIndex(i);
    MutableData()[i] = std::move(value);
  }
  /*! \brief Appends; requires size < capacity. */
  void PushBackNoGrow(Any value) {
    new (MutableData() + seq.size) Any(std::move(value));
    ++seq.size;
  }
  /*! \brief Removes the last element (IndexError when empty). */
  void PopBack() {
    if (seq.size == 0) TVM_FFI_THROW(IndexError) << "pop_back() of an empty sequence";
    ShrinkTo(seq.size - 1);
  }
  /*! \brief Destroys elements from `n` on. */
  void ShrinkTo(int64_t n) {
    DestroyRange(n, seq.size);
    seq.size = n;
  }
  /*! \brief Destroys every element (keeps the storage). */
  void clear() { ShrinkTo(0); }
  /*! \brief Grows to `n` elements (None-filled); requires n <= capacity. */
  void GrowTo(int64_t n) {
    Any* data = MutableData();
    for (int64_t i = seq.size; i < n; ++i) new (data + i) Any();
    seq.size = n;
  }
  /*!
   * \brief Inserts `values` at `idx`; requires size + values.size() <= capacity. Callers convert
   * to Any beforehand, so a throwing conversion never leaves a half-shifted sequence.
   */
  void InsertNoGrow(int64_t idx, std::vector<Any>&& values) {
    if (idx < 0 || idx > seq.size) {
      TVM_FFI_THROW(IndexError) << "insert position " << idx << " out of range [0, " << seq.size
                                << "]";
    }
    int64_t count = static_cast<int64_t>(values.size());
    Any* data = MutableData();
    std::memmove(static_cast<void*>(data + idx + count), static_cast<void*>(data + idx),
                 static_cast<size_t>(seq.size - idx) * sizeof(Any));
    for (int64_t i = 0; i < count; ++i) new (data + idx + i) Any(std::move(values[i]));
    seq.size += count;
  }
  /*! \brief Erases [first, last). */
  void EraseRange(int64_t first, int64_t last) {
    if (first < 0 || last > seq.size || first > last) {
      TVM_FFI_THROW(IndexError) << "erase range [" << first << ", " << last
                                << ") out of range for size " << seq.size;
    }
    if (first == last) return;
    DestroyRange(first, last);
    Any* data = MutableData();
    std::memmove(static_cast<void*>(data + first), static_cast<void*>(data + last),
                 static_cast<size_t>(seq.size - last) * sizeof(Any));
    seq.size -= last - first;
  }

  /*! \brief Writable element storage (for the owners of the storage policy). */
  Any* MutableData() const { return static_cast<Any*>(seq.data); }

 protected:
  void CheckIndex(int64_t i) const {
    if (i < 0 || i >= seq.size) {
      TVM_FFI_THROW(IndexError) << "index " << i << " out of range for size " << seq.size;
    }
  }
  void DestroyRange(int64_t first, int64_t last) {
    Any* data = MutableData();
    for (int64_t i = last; i > first; --i) data[i - 1].~Any();
  }
};

static_assert(sizeof(SeqBaseObj) == 56, "SeqBaseObj must be header (24) + TVMFFISeqCell (32)");

namespace details {

/*! \brief Element-wise check used by the typed traits: every stored value is exactly a T. */
template <typename T>
bool AllStoredStrict(const SeqBaseObj* seq) {
  if constexpr (std::is_same_v<T, Any>) {
    return true;
  } else {
    for (const Any& v : *seq) {
      if (!TypeTraits<T>::CheckAnyStrict(v.raw())) return false;
    }
    return true;
  }
}

/*! \brief The SeqBaseObj behind an Array/List value. */
inline const SeqBaseObj* SeqOf(const TVMFFIAny* v) {
  return static_cast<const SeqBaseObj*>(ObjectUnsafe::FromHandle(v->v_obj));
}

/*!
 * \brief Shared TypeTraits of Array<T> and List<T>. The value is reused when it already has the
 * primary index and every element is strictly a T; otherwise (the other sequence kind, or
 * elements needing conversion) a new sequence is built element by element, failing with
 * nullopt if any element does not convert.
 */
template <typename SeqRef, typename T, int32_t kPrimary, int32_t kOther>
struct SeqTraitsBase : ObjectRefTraitsBase<SeqRef> {
  static bool CheckAnyStrict(const TVMFFIAny* v) {
    return v->type_index == kPrimary && AllStoredStrict<T>(SeqOf(v));
  }
  static std::optional<SeqRef> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index != kPrimary && v->type_index != kOther) return std::nullopt;
    const SeqBaseObj* seq = SeqOf(v);
    if (v->type_index == kPrimary && AllStoredStrict<T>(seq)) {
      return ObjectUnsafe::RefFromPtr<SeqRef>(ObjectUnsafe::PtrFromUnowned<Object>(seq));
    }
    SeqRef out;
    out.reserve(static_cast<int64_t>(seq->size()));
    for (const Any& item : *seq) {
      std::optional<T> converted = TypeTraits<T>::TryCastFromAnyView(item.raw());
      if (!converted.has_value()) return std::nullopt;
      out.push_back(std::move(*converted));
    }
    return out;
  }
};

}  // namespace details
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_SEQ_BASE_H_
