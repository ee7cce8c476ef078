/*
 * Optional<T>: a value of T or nothing, with the representation tvm-ffi 0.1.x uses where C++
 * signatures cross libraries (ModuleObj's virtual functions return Optional<Function> and
 * Optional<String>), so the bytes are the same on both sides of a call:
 *
 *   T an ObjectRef (Function, Module, Array ...): one pointer, nullptr = nothing (8 bytes).
 *     A null reference and "nothing" are the same value.
 *   T = String or Bytes: one TVMFFIAny, type index kTVMFFINone = nothing (16 bytes).
 *   anything else: std::optional<T> (the reference keeps scalars in an Any here; no C++
 *     signature of ours passes those across a library boundary).
 *
 * Every form has a non-trivial destructor, so the Itanium ABI returns it through memory.
 * Optional<T> converts from and to std::optional<T> (the form the rest of our code uses).
 */
#ifndef TVM_FFI_OPTIONAL_H_
#define TVM_FFI_OPTIONAL_H_

#include <tvm/ffi/any.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

template <typename T, typename = void>
class Optional;

namespace details {
template <typename T>
constexpr bool kOptionalAsPointer = std::is_base_of_v<ObjectRef, T>;
/*!
 * \brief Values an Any can hold (strings, numbers, dtypes, devices) live in an Any, None =
 * nothing: the layout apache-tvm-ffi 0.1.16 uses (16 bytes), e.g. for the
 * `const Optional<int>&` parameter of json::Stringify.
 */
template <typename T>
constexpr bool kOptionalAsAny = std::is_same_v<T, String> || std::is_same_v<T, Bytes> ||
                                (std::is_arithmetic_v<T> && !std::is_same_v<T, char>) ||
                                std::is_same_v<T, DLDataType> || std::is_same_v<T, DLDevice>;

[[noreturn]] inline void ThrowEmptyOptional() {
  TVM_FFI_THROW(RuntimeError) << "value() of an empty Optional";
}
}  // namespace details

/*! \brief Members every form shares; Derived provides has_value() and value(). */
template <typename Derived, typename T>
class OptionalCommon {
 public:
  explicit operator bool() const { return self().has_value(); }
  template <typename U>
  T value_or(U&& other) const {
    return self().has_value() ? T(self().value()) : T(std::forward<U>(other));
  }
  /*! \brief The value as a std::optional (a copy). */
  operator std::optional<T>() const {  // NOLINT(*)
    if (!self().has_value()) return std::nullopt;
    return T(self().value());
  }
  friend bool operator==(const Derived& a, std::nullopt_t) { return !a.has_value(); }
  friend bool operator==(std::nullopt_t, const Derived& a) { return !a.has_value(); }
  friend bool operator!=(const Derived& a, std::nullopt_t) { return a.has_value(); }
  friend bool operator!=(std::nullopt_t, const Derived& a) { return a.has_value(); }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

/*! \brief Fallback form: std::optional<T>. */
template <typename T, typename>
class Optional : public OptionalCommon<Optional<T>, T> {
 public:
  Optional() = default;
  Optional(std::nullopt_t) {}                        // NOLINT(*)
  Optional(T value) : data_(std::move(value)) {}     // NOLINT(*)
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> other) : data_(std::move(other)) {}  // NOLINT(*)
  Optional& operator=(std::nullopt_t) {
    data_.reset();
    return *this;
  }
  bool has_value() const { return data_.has_value(); }
  const T& value() const {
    if (!data_.has_value()) details::ThrowEmptyOptional();
    return *data_;
  }
  const T& operator*() const { return *data_; }
  const T* operator->() const { return &*data_; }
  void reset() { data_.reset(); }

 private:
  std::optional<T> data_;
};

/*! \brief ObjectRef form: the reference itself, null = nothing. */
template <typename T>
class Optional<T, std::enable_if_t<details::kOptionalAsPointer<T>>>
    : public OptionalCommon<Optional<T>, T> {
 public:
  Optional() : data_(details::UnsafeInit{}) {}
  Optional(std::nullopt_t) : data_(details::UnsafeInit{}) {}      // NOLINT(*)
  Optional(std::nullptr_t) : data_(details::UnsafeInit{}) {}      // NOLINT(*)
  Optional(T value) : data_(std::move(value)) {}                  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> other) : data_(details::UnsafeInit{}) {  // NOLINT(*)
    if (other.has_value()) data_ = std::move(*other);
  }
  Optional& operator=(std::nullopt_t) {
    data_ = T(details::UnsafeInit{});
    return *this;
  }
  bool has_value() const { return data_.defined(); }
  const T& value() const {
    if (!data_.defined()) details::ThrowEmptyOptional();
    return data_;
  }
  const T& operator*() const { return data_; }
  const T* operator->() const { return &data_; }
  void reset() { data_ = T(details::UnsafeInit{}); }

 private:
  T data_;
};

/*! \brief Any-storable form (String, Bytes, numbers, DLDataType, DLDevice): an Any, None = nothing. */
template <typename T>
class Optional<T, std::enable_if_t<details::kOptionalAsAny<T>>>
    : public OptionalCommon<Optional<T>, T> {
 public:
  Optional() = default;
  Optional(std::nullopt_t) {}                      // NOLINT(*)
  Optional(T value) : data_(std::move(value)) {}   // NOLINT(*)
  Optional(const char* value) : data_(T(value)) {}  // NOLINT(*)
  Optional(const std::string& value) : data_(T(value)) {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> other) {  // NOLINT(*)
    if (other.has_value()) data_ = Any(std::move(*other));
  }
  Optional& operator=(std::nullopt_t) {
    data_ = Any();
    return *this;
  }
  bool has_value() const { return !data_.is_none(); }
  T value() const {
    if (data_.is_none()) details::ThrowEmptyOptional();
    return data_.cast<T>();
  }
  T operator*() const { return data_.cast<T>(); }
  void reset() { data_ = Any(); }

 private:
  Any data_;
};

/*! \brief Optional<T> travels like std::optional<T>: None or a T. */
template <typename T, typename E>
struct TypeTraits<Optional<T, E>> {
  using Std = TypeTraits<std::optional<T>>;
  static constexpr bool enabled = TypeTraits<T>::enabled;
  static void CopyToAnyView(const Optional<T, E>& value, TVMFFIAny* out) {
    // *value is a reference or, for String/Bytes, a copy sharing the object `value` holds.
    if (value.has_value()) {
      TypeTraits<T>::CopyToAnyView(*value, out);
    } else {
      details::InitNone(out);
    }
  }
  static void MoveToAny(Optional<T, E> value, TVMFFIAny* out) {
    Std::MoveToAny(static_cast<std::optional<T>>(value), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return Std::CheckAnyStrict(v); }
  static std::optional<Optional<T, E>> TryCastFromAnyView(const TVMFFIAny* v) {
    std::optional<std::optional<T>> out = Std::TryCastFromAnyView(v);
    if (!out.has_value()) return std::nullopt;
    return Optional<T, E>(std::move(*out));
  }
  static std::string TypeStr() { return Std::TypeStr(); }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_OPTIONAL_H_
