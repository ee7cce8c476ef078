/*
 * Memory builtins: storages and tensors from the VM's allocators, copies and views.
 * Builtins that allocate take the VM (the kVMRegister operand) first, because the VM knows
 * which allocator serves each device; device_index -1 means the host (the VM's last device).
 */
#include <tvm/ffi/container/shape.h>
#include <tvm/runtime/tensor.h>

#include "../support/registry.h"
#include "interpreter.h"
#include "storage.h"

namespace tvm {
namespace runtime {
namespace vm {
namespace {

std::vector<int64_t> ToVector(const ffi::Shape& s) {
  return std::vector<int64_t>(s.begin(), s.end());
}

std::vector<int64_t> ShapeOf(const DLTensor* t) {
  return std::vector<int64_t>(t->shape, t->shape + t->ndim);
}

/*! \brief Bytes requested by alloc_storage: an int (bytes) or a Shape (elements of `hint`). */
size_t StorageBytes(const ffi::AnyView& size, DLDataType hint) {
  if (std::optional<int64_t> n = size.as<int64_t>()) {
    TVM_FFI_CHECK(*n >= 0, ValueError) << "alloc_storage: negative size " << *n;
    return static_cast<size_t>(*n);
  }
  if (size.type_index() == kTVMFFIShape) {
    return ffi::details::DataBytes(hint, CheckedNumel(ToVector(size.cast<ffi::Shape>())));
  }
  TVM_FFI_THROW(TypeError) << "alloc_storage: size must be an int (bytes) or a Shape, got `"
                           << size.GetTypeKey() << "`";
}

/*! \brief A compact copy of `src` from `alloc`. */
ffi::Tensor CopyInto(memory::Allocator* alloc, const DLTensor* src) {
  ffi::Tensor out = AllocTensor(alloc, ShapeOf(src), src->dtype);
  CopyFromTo(src, out.GetDLTensorPtr());
  return out;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterRuntimeGlobal("vm.builtin.alloc_storage", [](const ffi::Module& vm_mod,
                                                       ffi::AnyView size, int64_t device_index,
                                                       DLDataType dtype_hint) {
    VirtualMachineObj* vm = AsVirtualMachine(vm_mod);
    return AllocStorage(vm->allocator(device_index), StorageBytes(size, dtype_hint),
                        kAllocAlignment, dtype_hint);
  });
  RegisterRuntimeGlobal("vm.builtin.alloc_tensor", [](const Storage& storage, int64_t offset,
                                                      const ffi::Shape& shape, DLDataType dtype) {
    return TensorInStorage(storage, offset, ToVector(shape), dtype);
  });
  RegisterRuntimeGlobal("vm.builtin.storage_nbytes", [](const Storage& storage) {
    return static_cast<int64_t>(storage->nbytes);
  });
  RegisterRuntimeGlobal("vm.builtin.empty", [](const ffi::Module& vm_mod, const ffi::Shape& shape,
                                               DLDataType dtype, int64_t device_index) {
    return AllocTensor(AsVirtualMachine(vm_mod)->allocator(device_index), ToVector(shape), dtype);
  });
  RegisterRuntimeGlobal("vm.builtin.copy", [](const ffi::Module& vm_mod, DLTensor* src) {
    return CopyInto(AsVirtualMachine(vm_mod)->AllocatorFor(src->device), src);
  });
  RegisterRuntimeGlobal("vm.builtin.to_device", [](const ffi::Module& vm_mod, DLTensor* src,
                                                   int64_t device_index) {
    return CopyInto(AsVirtualMachine(vm_mod)->allocator(device_index), src);
  });
  RegisterRuntimeGlobal("vm.builtin.reshape", [](const ffi::Tensor& src, const ffi::Shape& shape) {
    TVM_FFI_CHECK(src.defined(), TypeError) << "reshape: expected a Tensor, got None";
    TVM_FFI_CHECK(src.IsContiguous(), ValueError) << "reshape: the tensor is not compact";
    std::vector<int64_t> dims = ToVector(shape);
    TVM_FFI_CHECK(CheckedNumel(dims) == src.numel(), ValueError)
        << "reshape: cannot view " << src.numel() << " elements as " << CheckedNumel(dims);
    void* data = static_cast<char*>(src.data_ptr()) + src.byte_offset();
    return ffi::Tensor::FromNDAlloc(ViewAllocator{src, data}, dims, src.dtype(), src.device());
  });
  RegisterRuntimeGlobal("vm.builtin.memory_manager.clear", []() { memory::ReleaseAllCached(); });
}

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
