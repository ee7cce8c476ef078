/*
 * Function objects made from C callbacks, the call entry point, and view-to-owned conversion.
 */
#include <tvm/ffi/function.h>

namespace tvm {
namespace ffi {
namespace {

/*! \brief A Function around a C callback with its own context and deleter. */
class ExternCFunctionObj : public FunctionObj {
 public:
  ExternCFunctionObj(void* self, TVMFFISafeCallType fn, void (*deleter)(void*))
      : self_(self), fn_(fn), deleter_(deleter) {
    cell.safe_call = Call;
    cell.cpp_call = nullptr;
  }
  ~ExternCFunctionObj() {
    if (deleter_ != nullptr) deleter_(self_);
  }

 private:
  static int Call(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    auto* obj = static_cast<ExternCFunctionObj*>(
        static_cast<FunctionObj*>(details::ObjectUnsafe::FromHandle(handle)));
    return obj->fn_(obj->self_, args, num_args, result);
  }
  void* self_;
  TVMFFISafeCallType fn_;
  void (*deleter_)(void*);
};

}  // namespace
}  // namespace ffi
}  // namespace tvm

using tvm::ffi::details::ObjectUnsafe;

extern "C" {

int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call, void (*deleter)(void* self),
                         TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(safe_call != nullptr && out != nullptr, ValueError)
      << "TVMFFIFunctionCreate needs a callback and an output pointer";
  if (self == nullptr && deleter == nullptr) {
    // The callback is installed as safe_call itself and receives the Function handle.
    auto obj = tvm::ffi::make_object<tvm::ffi::FunctionObj>();
    obj->cell.safe_call = safe_call;
    obj->cell.cpp_call = nullptr;
    *out = ObjectUnsafe::MoveToHandle(std::move(obj));
  } else {
    *out = ObjectUnsafe::MoveToHandle(
        tvm::ffi::make_object<tvm::ffi::ExternCFunctionObj>(self, safe_call, deleter));
  }
  TVM_FFI_SAFE_CALL_END();
}

// Never a sibling call: backtraces stop at this frame to mark the FFI boundary.
__attribute__((noinline, optimize("no-optimize-sibling-calls"))) int TVMFFIFunctionCall(
    TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (func == nullptr || result == nullptr || (args == nullptr && num_args > 0) || num_args < 0) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "TVMFFIFunctionCall: null function, arguments or result");
    return -1;
  }
  if (TVMFFIObjectGetTypeIndex(func) != kTVMFFIFunction) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "TVMFFIFunctionCall: handle is not a Function");
    return -1;
  }
  int ret = TVMFFIFunctionGetCellPtr(func)->safe_call(func, args, num_args, result);
  return ret;
}

int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(any_view != nullptr && out != nullptr, ValueError) << "null argument";
  if (any_view->type_index == kTVMFFIObjectRValueRef) {
    TVMFFIObject** slot = static_cast<TVMFFIObject**>(any_view->v_ptr);
    TVM_FFI_CHECK(slot != nullptr && *slot != nullptr, RuntimeError) << "RValueRef already moved";
    TVMFFIObject* obj = *slot;
    *slot = nullptr;
    out->type_index = obj->type_index;
    out->zero_padding = 0;
    out->v_obj = obj;
    return 0;
  }
  tvm::ffi::details::CopyViewToOwned(any_view, out);
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
