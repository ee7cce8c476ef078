/*
 * The per-thread raised-error slot and Error construction from C.
 */
#include <tvm/ffi/error.h>

#include <new>
#include <string>

namespace tvm {
namespace ffi {
namespace {

/*! \brief Owns the thread's pending error and releases it when the thread ends. */
struct RaisedErrorSlot {
  TVMFFIObjectHandle error = nullptr;
  ~RaisedErrorSlot() { TVMFFIObjectDecRef(error); }
  void Set(TVMFFIObjectHandle err) {
    TVMFFIObjectHandle old = error;
    error = err;
    TVMFFIObjectDecRef(old);
  }
};

RaisedErrorSlot& Slot() {
  thread_local RaisedErrorSlot slot;
  return slot;
}

std::string ToString(const TVMFFIByteArray* arr) {
  if (arr == nullptr || arr->data == nullptr) return std::string();
  return std::string(arr->data, arr->size);
}

/*! \brief Builds an Error without touching the raised slot; nullptr when memory runs out. */
TVMFFIObjectHandle NewError(std::string kind, std::string message, std::string backtrace) noexcept {
  try {
    return details::ObjectUnsafe::MoveToHandle(
        make_object<ErrorObj>(std::move(kind), std::move(message), std::move(backtrace)));
  } catch (...) {
    return nullptr;
  }
}

void SetRaisedNew(const char* kind, std::string message) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace(nullptr, 0, nullptr, 0);
  TVMFFIObjectHandle err = NewError(kind == nullptr ? "RuntimeError" : kind, std::move(message),
                                    std::string(bt->data, bt->size));
  // On allocation failure the slot keeps whatever it had; callers still see -1.
  if (err != nullptr) Slot().Set(err);
}

}  // namespace
}  // namespace ffi
}  // namespace tvm

extern "C" {

void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result) {
  auto& slot = tvm::ffi::Slot();
  if (result == nullptr) return;
  *result = slot.error;
  slot.error = nullptr;
}

void TVMFFIErrorSetRaised(TVMFFIObjectHandle error) {
  if (error != nullptr) TVMFFIObjectIncRef(error);
  tvm::ffi::Slot().Set(error);
}

void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message) {
  tvm::ffi::SetRaisedNew(kind, message == nullptr ? "" : message);
}

void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                       int32_t num_parts) {
  std::string message;
  for (int32_t i = 0; message_parts != nullptr && i < num_parts; ++i) {
    if (message_parts[i] != nullptr) message += message_parts[i];
  }
  tvm::ffi::SetRaisedNew(kind, std::move(message));
}

int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                      const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out) {
  return TVMFFIErrorCreateWithCauseAndExtraContext(kind, message, backtrace, nullptr, nullptr,
                                                   out);
}

int TVMFFIErrorCreateWithCauseAndExtraContext(const TVMFFIByteArray* kind,
                                              const TVMFFIByteArray* message,
                                              const TVMFFIByteArray* backtrace,
                                              TVMFFIObjectHandle cause_chain,
                                              TVMFFIObjectHandle extra_context,
                                              TVMFFIObjectHandle* out) {
  if (out == nullptr) return -1;
  TVMFFIObjectHandle err = tvm::ffi::NewError(tvm::ffi::ToString(kind), tvm::ffi::ToString(message),
                                              tvm::ffi::ToString(backtrace));
  if (err == nullptr) return -1;
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  if (cause_chain != nullptr) TVMFFIObjectIncRef(cause_chain);
  if (extra_context != nullptr) TVMFFIObjectIncRef(extra_context);
  cell->cause_chain = cause_chain;
  cell->extra_context = extra_context;
  *out = err;
  return 0;
}

}  // extern "C"
