/*
 * Tensor: the ABI's n-d array object (type index 70), a DLTensor at +24 whose shape and strides
 * live inline after the object, plus TensorView, a borrowed DLTensor for kernel arguments.
 *
 * Invariant: `strides` is never NULL when ndim > 0 (compact strides are synthesised).
 */
#ifndef TVM_FFI_CONTAINER_TENSOR_H_
#define TVM_FFI_CONTAINER_TENSOR_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <cstring>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief Tensor object: header, then the DLTensor cell. Subclasses own the memory. */
class TensorObj : public Object, public DLTensor {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Tensor", TensorObj, Object, kTVMFFITensor);

 protected:
  TensorObj() {
    data = nullptr;
    device = DLDevice{kDLCPU, 0};
    ndim = 0;
    dtype = DLDataType{0, 0, 0};
    shape = nullptr;
    strides = nullptr;
    byte_offset = 0;
  }
};

namespace details {

/*! \brief Number of elements of a shape. */
inline int64_t ShapeNumel(const int64_t* shape, int32_t ndim) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

/*! \brief Whether strides describe compact row-major storage (size-1 dims ignored). */
inline bool IsContiguousLayout(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) return true;
  }
  int64_t expected = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] == 1) continue;
    if (t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

/*! \brief Bytes of storage for `numel` elements of dtype (sub-byte types rounded up). */
inline size_t DataBytes(DLDataType dtype, int64_t numel) {
  int lanes = static_cast<int16_t>(dtype.lanes) < 1 ? 1 : dtype.lanes;
  return static_cast<size_t>((numel * dtype.bits * lanes + 7) / 8);
}

/*! \brief Copies shape into the inline storage after an object and fills compact strides. */
inline void FillInlineShape(TensorObj* obj, size_t obj_size, const int64_t* shape, int32_t ndim) {
  int64_t* storage = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(obj) + obj_size);
  int64_t* strides = storage + ndim;
  int64_t stride = 1;
  for (int32_t i = ndim - 1; i >= 0; --i) {
    storage[i] = shape[i];
    strides[i] = stride;
    stride *= shape[i];
  }
  obj->ndim = ndim;
  obj->shape = ndim == 0 ? nullptr : storage;
  obj->strides = ndim == 0 ? nullptr : strides;
}

/*! \brief A tensor whose data comes from an allocator object with AllocData/FreeData. */
template <typename TAllocator>
class TensorObjFromAllocator : public TensorObj {
 public:
  explicit TensorObjFromAllocator(TAllocator alloc) : alloc_(std::move(alloc)) {}
  ~TensorObjFromAllocator() {
    if (data != nullptr) alloc_.FreeData(static_cast<DLTensor*>(this));
  }
  TAllocator alloc_;
};

}  // namespace details

/*! \brief A reference to a Tensor object. */
class Tensor : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Tensor, ObjectRef, TensorObj);

  void* data_ptr() const { return get()->data; }
  DLDevice device() const { return get()->device; }
  int32_t ndim() const { return get()->ndim; }
  DLDataType dtype() const { return get()->dtype; }
  const int64_t* shape() const { return get()->shape; }
  const int64_t* strides() const { return get()->strides; }
  uint64_t byte_offset() const { return get()->byte_offset; }
  int64_t size(int32_t axis) const { return get()->shape[axis < 0 ? axis + ndim() : axis]; }
  int64_t numel() const { return details::ShapeNumel(get()->shape, get()->ndim); }
  bool IsContiguous() const { return details::IsContiguousLayout(*get()); }
  /*! \brief The borrowed DLTensor of this tensor. */
  DLTensor* GetDLTensorPtr() const { return const_cast<DLTensor*>(static_cast<const DLTensor*>(get())); }

  /*!
   * \brief A new compact tensor whose data comes from `alloc.AllocData(DLTensor*)` and is freed
   * by `alloc.FreeData(DLTensor*)` when the tensor dies.
   */
  template <typename TAllocator>
  static Tensor FromNDAlloc(TAllocator alloc, const std::vector<int64_t>& shape, DLDataType dtype,
                            DLDevice device) {
    using Impl = details::TensorObjFromAllocator<TAllocator>;
    int32_t ndim = static_cast<int32_t>(shape.size());
    ObjectPtr<Impl> obj = make_inplace_array_object<Impl, int64_t>(2 * shape.size(), std::move(alloc));
    details::FillInlineShape(obj.get(), sizeof(Impl), shape.data(), ndim);
    obj->dtype = dtype;
    obj->device = device;
    obj->alloc_.AllocData(static_cast<DLTensor*>(obj.get()));
    return Tensor(ObjectPtr<TensorObj>(std::move(obj)));
  }

  /*! \brief A new tensor from the environment's allocator (TVMFFIEnvTensorAlloc). */
  static Tensor FromEnvAlloc(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
    DLTensor prototype{};
    prototype.device = device;
    prototype.dtype = dtype;
    prototype.ndim = static_cast<int32_t>(shape.size());
    prototype.shape = const_cast<int64_t*>(shape.data());
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIEnvTensorAlloc(&prototype, &out));
    return Tensor(details::ObjectUnsafe::PtrFromOwnedHandle<TensorObj>(out));
  }

  /*! \brief Adopts a versioned DLPack tensor (ownership moves only on success). */
  static Tensor FromDLPackVersioned(DLManagedTensorVersioned* managed, int32_t require_alignment = 0,
                                    bool require_contiguous = false) {
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorFromDLPackVersioned(managed, require_alignment,
                                                            require_contiguous ? 1 : 0, &out));
    return Tensor(details::ObjectUnsafe::PtrFromOwnedHandle<TensorObj>(out));
  }
  /*! \brief Adopts a legacy DLPack tensor (ownership moves only on success). */
  static Tensor FromDLPack(DLManagedTensor* managed, int32_t require_alignment = 0,
                           bool require_contiguous = false) {
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFITensorFromDLPack(managed, require_alignment, require_contiguous ? 1 : 0, &out));
    return Tensor(details::ObjectUnsafe::PtrFromOwnedHandle<TensorObj>(out));
  }
  /*! \brief Exports a new versioned managed tensor that keeps this tensor alive. */
  DLManagedTensorVersioned* ToDLPackVersioned() const {
    DLManagedTensorVersioned* out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFITensorToDLPackVersioned(details::ObjectUnsafe::ToHandle(get()), &out));
    return out;
  }
  /*! \brief Exports a new legacy managed tensor that keeps this tensor alive. */
  DLManagedTensor* ToDLPack() const {
    DLManagedTensor* out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorToDLPack(details::ObjectUnsafe::ToHandle(get()), &out));
    return out;
  }
};

/*!
 * \brief A borrowed tensor for kernel arguments: accepts a Tensor object or a raw DLTensor*.
 * Valid only during the call that received it.
 */
class TensorView {
 public:
  explicit TensorView(const DLTensor* tensor) : tensor_(*tensor) {}
  TensorView(const Tensor& tensor) : tensor_(*tensor.GetDLTensorPtr()) {}  // NOLINT(*)

  void* data_ptr() const { return tensor_.data; }
  DLDevice device() const { return tensor_.device; }
  int32_t ndim() const { return tensor_.ndim; }
  DLDataType dtype() const { return tensor_.dtype; }
  const int64_t* shape() const { return tensor_.shape; }
  const int64_t* strides() const { return tensor_.strides; }
  uint64_t byte_offset() const { return tensor_.byte_offset; }
  int64_t size(int32_t axis) const { return tensor_.shape[axis < 0 ? axis + ndim() : axis]; }
  int64_t numel() const { return details::ShapeNumel(tensor_.shape, tensor_.ndim); }
  bool IsContiguous() const { return details::IsContiguousLayout(tensor_); }
  const DLTensor* operator->() const { return &tensor_; }
  const DLTensor* get() const { return &tensor_; }

 private:
  DLTensor tensor_;
};

template <>
struct TypeTraits<TensorView> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const TensorView& v, TVMFFIAny* out) {
    out->type_index = kTVMFFIDLTensorPtr;
    out->zero_padding = 0;
    out->v_ptr = const_cast<DLTensor*>(v.get());
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) {
    return v->type_index == kTVMFFIDLTensorPtr || v->type_index == kTVMFFITensor;
  }
  static std::optional<TensorView> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIDLTensorPtr) return TensorView(static_cast<DLTensor*>(v->v_ptr));
    if (v->type_index == kTVMFFITensor) return TensorView(TVMFFITensorGetDLTensorPtr(v->v_obj));
    return std::nullopt;
  }
  static std::string TypeStr() { return "Tensor"; }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_TENSOR_H_
