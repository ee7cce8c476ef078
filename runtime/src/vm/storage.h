/*
 * Storage: a block from a runtime allocator, returned to that allocator when the last tensor
 * viewing it dies. Tensors made by the VM's builtins are views into storages, so a pooled
 * allocator sees every release and can hand the block to the next run.
 */
#ifndef TVM_RUNTIME_SRC_VM_STORAGE_H_
#define TVM_RUNTIME_SRC_VM_STORAGE_H_

#include <tvm/ffi/container/tensor.h>

#include <vector>

#include "../memory/allocator.h"

namespace tvm {
namespace runtime {
namespace vm {

class StorageObj : public ffi::Object {
 public:
  StorageObj(memory::Allocator* alloc, memory::Buffer buffer, size_t nbytes)
      : nbytes(nbytes), alloc_(alloc), buffer_(buffer) {}
  ~StorageObj() { alloc_->Free(buffer_); }
  const memory::Buffer& buffer() const { return buffer_; }
  /*! \brief Bytes usable by tensors (the request, not the allocator's rounded size). */
  const size_t nbytes;

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("runtime.vm.Storage", StorageObj, ffi::Object);

 private:
  memory::Allocator* alloc_;
  memory::Buffer buffer_;
};

class Storage : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Storage, ffi::ObjectRef, StorageObj);
};

/*! \brief A new storage of `nbytes` from `alloc`. */
inline Storage AllocStorage(memory::Allocator* alloc, size_t nbytes, size_t alignment,
                            DLDataType hint) {
  memory::Buffer buffer = alloc->Alloc(nbytes, alignment, hint);
  return Storage(ffi::make_object<StorageObj>(alloc, buffer, nbytes));
}

/*! \brief Elements of `shape`; ValueError on a negative extent or more than 2^48 elements. */
inline int64_t CheckedNumel(const std::vector<int64_t>& shape) {
  int64_t numel = 1;
  for (int64_t d : shape) {
    TVM_FFI_CHECK(d >= 0, ValueError) << "negative tensor extent " << d;
    TVM_FFI_CHECK(d == 0 || numel <= (int64_t{1} << 48) / d, ValueError)
        << "tensor shape too large";
    numel *= d;
  }
  return numel;
}

/*! \brief Tensor data borrowed from an object that keeps it alive (a storage or a tensor). */
struct ViewAllocator {
  ffi::ObjectRef owner;
  void* data;
  void AllocData(DLTensor* t) { t->data = data; }
  void FreeData(DLTensor*) {}
};

/*!
 * \brief A compact tensor over `storage` at byte `offset`; ValueError when it does not fit.
 * The tensor's data pointer includes the offset (byte_offset stays 0, as kernels expect).
 */
inline ffi::Tensor TensorInStorage(const Storage& storage, int64_t offset,
                                   const std::vector<int64_t>& shape, DLDataType dtype) {
  TVM_FFI_CHECK(dtype.bits > 0 && dtype.lanes > 0, ValueError)
      << "cannot place a tensor of a zero-width dtype";
  size_t nbytes = ffi::details::DataBytes(dtype, CheckedNumel(shape));
  TVM_FFI_CHECK(offset >= 0 && static_cast<size_t>(offset) <= storage->nbytes &&
                    nbytes <= storage->nbytes - static_cast<size_t>(offset),
                ValueError)
      << "tensor of " << nbytes << " bytes at offset " << offset << " does not fit in storage of "
      << storage->nbytes << " bytes";
  void* data = static_cast<char*>(storage->buffer().data) + offset;
  return ffi::Tensor::FromNDAlloc(ViewAllocator{storage, data}, shape, dtype,
                                  storage->buffer().device);
}

/*! \brief A fresh compact tensor whose memory comes from `alloc`. */
inline ffi::Tensor AllocTensor(memory::Allocator* alloc, const std::vector<int64_t>& shape,
                               DLDataType dtype) {
  TVM_FFI_CHECK(dtype.bits > 0 && dtype.lanes > 0, ValueError)
      << "cannot allocate a tensor of a zero-width dtype";
  size_t nbytes = ffi::details::DataBytes(dtype, CheckedNumel(shape));
  Storage s = AllocStorage(alloc, nbytes, kAllocAlignment, dtype);
  return TensorInStorage(s, 0, shape, dtype);
}

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_VM_STORAGE_H_
