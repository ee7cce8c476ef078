/*
 * Tuple<Types...>: a fixed-size heterogeneous sequence, stored as an ffi.Array object (type
 * index kTVMFFIArray) exactly as apache-tvm-ffi stores it, so a Tuple crosses libraries as one
 * object pointer (8 bytes; Optional<Tuple<...>> too). Elements are read with get<I>().
 * Converting an Any to a Tuple checks that it holds an Array, not its length or element types.
 */
#ifndef TVM_FFI_CONTAINER_TUPLE_H_
#define TVM_FFI_CONTAINER_TUPLE_H_

#include <tvm/ffi/container/array.h>

#include <cstddef>
#include <tuple>
#include <utility>

namespace tvm {
namespace ffi {

template <typename... Types>
class Tuple : public ObjectRef {
 public:
  static constexpr size_t kSize = sizeof...(Types);
  /*! \brief A tuple of the given elements. */
  explicit Tuple(Types... args) : ObjectRef(details::UnsafeInit{}) {
    Array<Any> arr{Any(std::move(args))...};
    data_ = details::ObjectUnsafe::GetPtr(arr);
  }
  explicit Tuple(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  explicit Tuple(details::UnsafeInit tag) : ObjectRef(tag) {}

  /*! \brief Element I, converted to its declared type. */
  template <size_t I>
  auto get() const {
    static_assert(I < kSize, "Tuple index out of range");
    using T = std::tuple_element_t<I, std::tuple<Types...>>;
    return static_cast<const ArrayObj*>(data_.get())->at(static_cast<int64_t>(I)).template cast<T>();
  }
  size_t size() const { return kSize; }

  const ArrayObj* get() const { return static_cast<const ArrayObj*>(data_.get()); }
  const ArrayObj* operator->() const { return get(); }
  using ContainerType = ArrayObj;
  static constexpr bool _type_is_nullable = false;
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_TUPLE_H_
