/*
 * Tensors from and to DLPack, strided views, and allocation through the environment's
 * DLPack allocator.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstdint>
#include <string>

namespace tvm {
namespace ffi {
namespace {

/*!
 * \brief A tensor that owns a DLPack managed tensor and releases it when it dies.
 * Shape and strides are copied inline so the invariant "strides set when ndim > 0" holds even
 * for producers that pass NULL strides.
 */
template <typename Managed>
class TensorObjFromDLPack : public TensorObj {
 public:
  explicit TensorObjFromDLPack(Managed* managed) : managed_(managed) {}
  ~TensorObjFromDLPack() {
    if (managed_ != nullptr && managed_->deleter != nullptr) managed_->deleter(managed_);
  }
  /*! \brief Takes ownership; called last so a failed import leaves it with the caller. */
  void Adopt(Managed* managed) { managed_ = managed; }

 private:
  Managed* managed_;
};

/*! \brief A tensor viewing another tensor's memory; holds the source alive. */
class TensorViewObj : public TensorObj {
 public:
  explicit TensorViewObj(ObjectPtr<Object> source) : source_(std::move(source)) {}

 private:
  ObjectPtr<Object> source_;
};

/*! \brief Devices whose data pointers are plain addresses, so alignment applies to them. */
bool IsDirectAddress(int32_t device_type) {
  return device_type == kDLCPU || device_type == kDLCUDA || device_type == kDLCUDAHost ||
         device_type == kDLCUDAManaged || device_type == kDLROCM || device_type == kDLROCMHost;
}

void CheckImportable(const DLTensor& t, int32_t require_alignment, int32_t require_contiguous) {
  TVM_FFI_CHECK(t.ndim >= 0, ValueError) << "FromDLPack: negative ndim " << t.ndim;
  TVM_FFI_CHECK(t.ndim == 0 || t.shape != nullptr, ValueError) << "FromDLPack: null shape";
  for (int32_t i = 0; i < t.ndim; ++i) {
    TVM_FFI_CHECK(t.shape[i] >= 0, ValueError) << "FromDLPack: negative extent in dim " << i;
  }
  if (require_alignment > 0) {
    uintptr_t addr = IsDirectAddress(t.device.device_type)
                         ? reinterpret_cast<uintptr_t>(t.data) + t.byte_offset
                         : static_cast<uintptr_t>(t.byte_offset);
    if (addr % static_cast<uintptr_t>(require_alignment) != 0) {
      TVM_FFI_THROW(RuntimeError) << "FromDLPack: Data is not aligned to " << require_alignment
                                  << " bytes.";
    }
  }
  if (require_contiguous && !details::IsContiguousLayout(t)) {
    TVM_FFI_THROW(RuntimeError) << "FromDLPack: Tensor is not contiguous.";
  }
}

/*! \brief Builds a Tensor adopting `managed` (only after every check passed). */
template <typename Managed>
TVMFFIObjectHandle Import(Managed* managed, int32_t require_alignment, int32_t require_contiguous) {
  TVM_FFI_CHECK(managed != nullptr, ValueError) << "FromDLPack: null tensor";
  const DLTensor& src = managed->dl_tensor;
  CheckImportable(src, require_alignment, require_contiguous);
  using Impl = TensorObjFromDLPack<Managed>;
  ObjectPtr<Impl> obj = make_inplace_array_object<Impl, int64_t>(2 * src.ndim, nullptr);
  details::FillInlineShape(obj.get(), sizeof(Impl), src.shape, src.ndim);
  if (src.strides != nullptr) {
    for (int32_t i = 0; i < src.ndim; ++i) obj->strides[i] = src.strides[i];
  }
  obj->data = src.data;
  obj->device = src.device;
  obj->dtype = src.dtype;
  obj->byte_offset = src.byte_offset;
  // Adopt last: a throw above leaves the managed tensor with the caller.
  obj->Adopt(managed);
  return details::ObjectUnsafe::MoveToHandle(std::move(obj));
}

TensorObj* RequireTensor(TVMFFIObjectHandle h) {
  TVM_FFI_CHECK(h != nullptr, ValueError) << "null tensor handle";
  TVM_FFI_CHECK(TVMFFIObjectGetTypeIndex(h) == kTVMFFITensor, TypeError)
      << "handle is not a Tensor (type index " << TVMFFIObjectGetTypeIndex(h) << ")";
  return static_cast<TensorObj*>(details::ObjectUnsafe::FromHandle(h));
}

template <typename Managed>
Managed* Export(TVMFFIObjectHandle handle) {
  TensorObj* tensor = RequireTensor(handle);
  Managed* out = new Managed();
  out->dl_tensor = *static_cast<DLTensor*>(tensor);
  out->manager_ctx = handle;
  out->deleter = [](Managed* self) {
    TVMFFIObjectDecRef(self->manager_ctx);
    delete self;
  };
  TVMFFIObjectIncRef(handle);
  return out;
}

/*! \brief Error sink handed to a DLPack allocator: raises in our slot. */
void SetAllocError(void*, const char* kind, const char* message) {
  TVMFFIErrorSetRaisedFromCStr(kind, message);
}

}  // namespace
}  // namespace ffi
}  // namespace tvm

using tvm::ffi::details::ObjectUnsafe;

extern "C" {

int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                           int32_t require_contiguous, TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(out != nullptr, ValueError) << "null output pointer";
  *out = tvm::ffi::Import(from, require_alignment, require_contiguous);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                    int32_t require_contiguous, TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(out != nullptr, ValueError) << "null output pointer";
  TVM_FFI_CHECK(from != nullptr, ValueError) << "FromDLPack: null tensor";
  if (from->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) {
    TVM_FFI_THROW(RuntimeError) << "FromDLPack: sub-byte padded tensors are not supported";
  }
  *out = tvm::ffi::Import(from, require_alignment, require_contiguous);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(out != nullptr, ValueError) << "null output pointer";
  *out = tvm::ffi::Export<DLManagedTensor>(from);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from, DLManagedTensorVersioned** out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(out != nullptr, ValueError) << "null output pointer";
  DLManagedTensorVersioned* managed = tvm::ffi::Export<DLManagedTensorVersioned>(from);
  managed->version.major = DLPACK_MAJOR_VERSION;
  managed->version.minor = DLPACK_MINOR_VERSION;
  managed->flags = 0;
  *out = managed;
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                 TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(prototype != nullptr && out != nullptr, ValueError) << "null argument";
  tvm::ffi::RequireTensor(source);
  TVM_FFI_CHECK(prototype->ndim >= 0, ValueError) << "negative ndim";
  TVM_FFI_CHECK(prototype->ndim == 0 || (prototype->shape != nullptr && prototype->strides != nullptr),
                ValueError)
      << "a view needs shape and strides";
  using Impl = tvm::ffi::TensorViewObj;
  auto obj = tvm::ffi::make_inplace_array_object<Impl, int64_t>(
      2 * prototype->ndim, ObjectUnsafe::PtrFromUnowned<tvm::ffi::Object>(ObjectUnsafe::FromHandle(source)));
  tvm::ffi::details::FillInlineShape(obj.get(), sizeof(Impl), prototype->shape, prototype->ndim);
  for (int32_t i = 0; i < prototype->ndim; ++i) obj->strides[i] = prototype->strides[i];
  obj->data = prototype->data;
  obj->device = prototype->device;
  obj->dtype = prototype->dtype;
  obj->byte_offset = prototype->byte_offset;
  *out = ObjectUnsafe::MoveToHandle(std::move(obj));
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(prototype != nullptr && out != nullptr, ValueError) << "null argument";
  DLPackManagedTensorAllocator alloc = TVMFFIEnvGetDLPackManagedTensorAllocator();
  if (alloc == nullptr) {
    TVM_FFI_THROW(RuntimeError)
        << "TVMFFIEnvTensorAlloc: allocator is nullptr, likely because "
           "TVMFFIEnvSetDLPackManagedTensorAllocator has not been called.";
  }
  DLManagedTensorVersioned* managed = nullptr;
  int ret = alloc(prototype, &managed, nullptr, tvm::ffi::SetAllocError);
  if (ret != 0) return ret;
  TVM_FFI_CHECK(managed != nullptr, RuntimeError) << "TVMFFIEnvTensorAlloc: allocator returned no tensor";
  int rc = TVMFFITensorFromDLPackVersioned(managed, 0, 0, out);
  if (rc != 0 && managed->deleter != nullptr) managed->deleter(managed);
  return rc;
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
