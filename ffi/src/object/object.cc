/*
 * Reference counting entry points, opaque foreign objects, and the object allocator hook that
 * modules built with 0.1.13 headers call for every allocation.
 */
#include <tvm/ffi/any.h>

#include <cstdlib>
#include <new>

#include "../support/internal.h"

namespace tvm {
namespace ffi {
namespace {

/*! \brief Wrapper of a foreign handle (kTVMFFIOpaquePyObject). */
class OpaqueObject : public Object {
 public:
  TVMFFIOpaqueObjectCell cell;
  void (*handle_deleter)(void*);
  OpaqueObject(void* handle, void (*deleter)(void*)) : handle_deleter(deleter) {
    cell.handle = handle;
  }
  ~OpaqueObject() {
    if (handle_deleter != nullptr) handle_deleter(cell.handle);
  }
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.OpaquePyObject", OpaqueObject, Object,
                                     kTVMFFIOpaquePyObject);
};

// Builtin allocator: a 16-byte prefix keeps the body max-aligned; the TVMFFIObjectAllocHeader
// sits in the last 8 bytes of it, immediately before the body, as the contract requires.
constexpr size_t kPrefix = alignof(std::max_align_t);

void BuiltinDeleteSpace(void* body) { std::free(static_cast<char*>(body) - kPrefix); }

void* BuiltinAllocate(size_t size, size_t alignment, int32_t, void*) {
  if (alignment > kPrefix) return nullptr;
  char* base = static_cast<char*>(std::malloc(size + kPrefix));
  if (base == nullptr) return nullptr;
  char* body = base + kPrefix;
  reinterpret_cast<TVMFFIObjectAllocHeader*>(body)[-1].delete_space = BuiltinDeleteSpace;
  return body;
}

TVMFFICustomAllocator g_builtin_allocator{BuiltinAllocate, nullptr};
TVMFFICustomAllocator g_current_allocator{BuiltinAllocate, nullptr};

}  // namespace
}  // namespace ffi
}  // namespace tvm

using tvm::ffi::details::ObjectUnsafe;

extern "C" {

int TVMFFIObjectIncRef(TVMFFIObjectHandle obj) {
  if (obj == nullptr) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "TVMFFIObjectIncRef: null handle");
    return -1;
  }
  ObjectUnsafe::IncRef(ObjectUnsafe::FromHandle(obj));
  return 0;
}

int TVMFFIObjectDecRef(TVMFFIObjectHandle obj) {
  if (obj != nullptr) ObjectUnsafe::DecRef(ObjectUnsafe::FromHandle(obj));
  return 0;
}

int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index, void (*deleter)(void* handle),
                             TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(out != nullptr, ValueError) << "null output pointer";
  if (type_index != kTVMFFIOpaquePyObject) {
    TVM_FFI_THROW(RuntimeError) << "TVMFFIObjectCreateOpaque only supports type index "
                                << kTVMFFIOpaquePyObject << ", got " << type_index;
  }
  *out = ObjectUnsafe::MoveToHandle(
      tvm::ffi::make_object<tvm::ffi::OpaqueObject>(handle, deleter));
  TVM_FFI_SAFE_CALL_END();
}

TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void) { return &tvm::ffi::g_current_allocator; }

int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator) {
  TVM_FFI_SAFE_CALL_BEGIN();
  if (allocator == nullptr) {
    tvm::ffi::g_current_allocator = tvm::ffi::g_builtin_allocator;
  } else {
    TVM_FFI_CHECK(allocator->allocate != nullptr, ValueError) << "allocator without allocate()";
    tvm::ffi::g_current_allocator = *allocator;
  }
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
