/*
 * Errors: ErrorObj (the ABI's Error object), the C++ exception Error that carries one, the
 * TVM_FFI_THROW / TVM_FFI_ICHECK macros, and the guards that turn C++ exceptions into the
 * 0/-1 + raised-error convention at every C boundary.
 */
#ifndef TVM_FFI_ERROR_H_
#define TVM_FFI_ERROR_H_

#include <tvm/ffi/object.h>

#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*!
 * \brief The Error object: header + TVMFFIErrorCell at +24, then the owned texts.
 */
class ErrorObj : public Object {
 public:
  TVMFFIErrorCell cell;

  ErrorObj(std::string kind, std::string message, std::string backtrace)
      : kind_(std::move(kind)), message_(std::move(message)), backtrace_(std::move(backtrace)) {
    cell.update_backtrace = UpdateBacktrace;
    cell.cause_chain = nullptr;
    cell.extra_context = nullptr;
    SyncCell();
  }
  ~ErrorObj() {
    if (cell.cause_chain != nullptr) TVMFFIObjectDecRef(cell.cause_chain);
    if (cell.extra_context != nullptr) TVMFFIObjectDecRef(cell.extra_context);
  }

  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Error", ErrorObj, Object, kTVMFFIError);

 private:
  void SyncCell() {
    cell.kind = details::MakeByteArray(kind_.c_str(), kind_.size());
    cell.message = details::MakeByteArray(message_.c_str(), message_.size());
    cell.backtrace = details::MakeByteArray(backtrace_.c_str(), backtrace_.size());
  }
  static void UpdateBacktrace(TVMFFIObjectHandle self, const TVMFFIByteArray* text, int32_t mode) {
    ErrorObj* obj = static_cast<ErrorObj*>(details::ObjectUnsafe::FromHandle(self));
    std::string update(text->data, text->size);
    if (mode == kTVMFFIBacktraceUpdateModeAppend) {
      obj->backtrace_ += update;
    } else {
      obj->backtrace_ = std::move(update);
    }
    obj->SyncCell();
  }
  std::string kind_;
  std::string message_;
  std::string backtrace_;
};

namespace details {
inline const TVMFFIErrorCell* ErrorCellOf(const Object* obj) {
  return TVMFFIErrorGetCellPtr(ObjectUnsafe::ToHandle(obj));
}
inline std::string ToStdString(const TVMFFIByteArray& arr) { return std::string(arr.data, arr.size); }
}  // namespace details

/*!
 * \brief A C++ exception holding an Error object. Any Error object works, including one created
 * by another binary: the accessors read the ABI cell, never the C++ fields.
 */
class Error : public ObjectRef, public std::exception {
 public:
  Error(std::string kind, std::string message, std::string backtrace)
      : ObjectRef(make_object<ErrorObj>(std::move(kind), std::move(message),
                                        std::move(backtrace))) {}
  /*! \brief Wraps an existing Error object (checked by the caller). */
  explicit Error(ObjectPtr<Object> obj) : ObjectRef(std::move(obj)) {}
  explicit Error(details::UnsafeInit tag) : ObjectRef(tag) {}

  std::string kind() const { return details::ToStdString(cell()->kind); }
  std::string message() const { return details::ToStdString(cell()->message); }
  std::string backtrace() const { return details::ToStdString(cell()->backtrace); }

  /*! \brief Replaces or extends the backtrace through the object's own hook. */
  void UpdateBacktrace(const std::string& text, int32_t mode) const {
    TVMFFIByteArray arr = details::MakeByteArray(text.data(), text.size());
    cell()->update_backtrace(details::ObjectUnsafe::ToHandle(get()), &arr, mode);
  }

  /*! \brief "Traceback (most recent call last):" + frames oldest first + "kind: message". */
  std::string FullMessage() const {
    std::vector<std::string> lines;
    std::string bt = backtrace();
    size_t start = 0;
    while (start < bt.size()) {
      size_t end = bt.find('\n', start);
      if (end == std::string::npos) end = bt.size();
      if (end > start) lines.push_back(bt.substr(start, end - start));
      start = end + 1;
    }
    std::string out;
    if (!lines.empty()) {
      out = "Traceback (most recent call last):\n";
      for (auto it = lines.rbegin(); it != lines.rend(); ++it) out += *it + "\n";
    }
    return out + kind() + ": " + message() + "\n";
  }

  const char* what() const noexcept override { return cell()->message.data; }

  /*! \brief The object attached as extra context (e.g. a VisitErrorContext), if any. */
  std::optional<ObjectRef> extra_context() const {
    TVMFFIObjectHandle h = cell()->extra_context;
    if (h == nullptr) return std::nullopt;
    return ObjectRef(details::ObjectUnsafe::PtrFromUnowned<Object>(details::ObjectUnsafe::FromHandle(h)));
  }

  using ContainerType = ErrorObj;
  static constexpr bool _type_is_nullable = false;

 private:
  const TVMFFIErrorCell* cell() const { return details::ErrorCellOf(get()); }
};

namespace details {

/*! \brief Collects a message with operator<< and throws it as an Error when destroyed. */
class ErrorBuilder {
 public:
  ErrorBuilder(const char* kind, const char* file, int line, const char* func)
      : kind_(kind), backtrace_(TVMFFIBacktrace(file, line, func, 0)) {}
  [[noreturn]] ~ErrorBuilder() noexcept(false) {
    throw Error(kind_, stream_.str(), std::string(backtrace_->data, backtrace_->size));
  }
  std::ostringstream& stream() { return stream_; }

 private:
  std::string kind_;
  const TVMFFIByteArray* backtrace_;
  std::ostringstream stream_;
};

/*! \brief Stores a caught Error in the thread's raised-error slot. */
inline void SetRaisedFromError(const Error& err) {
  TVMFFIErrorSetRaised(ObjectUnsafe::ToHandle(err.get()));
}

/*! \brief Takes the raised error out of the slot as a C++ Error (RuntimeError if none). */
inline Error MoveFromRaised() {
  TVMFFIObjectHandle handle = nullptr;
  TVMFFIErrorMoveFromRaised(&handle);
  if (handle == nullptr) {
    return Error("RuntimeError", "a call failed without raising an error", "");
  }
  return Error(ObjectUnsafe::PtrFromOwnedHandle(handle));
}

}  // namespace details

/*! \brief Throws an Error of the given kind: TVM_FFI_THROW(ValueError) << "message". */
#define TVM_FFI_THROW(ErrorKind) \
  ::tvm::ffi::details::ErrorBuilder(#ErrorKind, __FILE__, __LINE__, TVM_FFI_FUNC_SIG).stream()

/*! \brief Checks a condition, throwing ErrorKind with the condition text when it fails. */
#define TVM_FFI_CHECK(cond, ErrorKind) \
  if (TVM_FFI_LIKELY(cond)) {          \
  } else                               \
    TVM_FFI_THROW(ErrorKind) << "Check failed: (" #cond ") is false: "

/*! \brief Internal invariant check (InternalError). */
#define TVM_FFI_ICHECK(cond) TVM_FFI_CHECK(cond, InternalError)
#define TVM_FFI_ICHECK_EQ(a, b) TVM_FFI_ICHECK((a) == (b))
#define TVM_FFI_ICHECK_NE(a, b) TVM_FFI_ICHECK((a) != (b))
#define TVM_FFI_ICHECK_LT(a, b) TVM_FFI_ICHECK((a) < (b))
#define TVM_FFI_ICHECK_LE(a, b) TVM_FFI_ICHECK((a) <= (b))
#define TVM_FFI_ICHECK_GE(a, b) TVM_FFI_ICHECK((a) >= (b))
#define TVM_FFI_ICHECK_GT(a, b) TVM_FFI_ICHECK((a) > (b))

/*!
 * \brief Brackets the body of a C entry point: exceptions become the raised error and -1.
 * Usage: `TVM_FFI_SAFE_CALL_BEGIN(); ...; TVM_FFI_SAFE_CALL_END();`
 */
#define TVM_FFI_SAFE_CALL_BEGIN() try {
#define TVM_FFI_SAFE_CALL_END()                                       \
  return 0;                                                           \
  }                                                                   \
  catch (const ::tvm::ffi::Error& err) {                              \
    ::tvm::ffi::details::SetRaisedFromError(err);                     \
    return -1;                                                        \
  }                                                                   \
  catch (const std::bad_alloc&) {                                     \
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "out of memory");     \
    return -1;                                                        \
  }                                                                   \
  catch (const std::exception& err) {                                 \
    TVMFFIErrorSetRaisedFromCStr("InternalError", err.what());        \
    return -1;                                                        \
  }

/*! \brief Calls a C entry point and rethrows its raised error as a C++ Error on failure. */
#define TVM_FFI_CHECK_SAFE_CALL(func)                      \
  {                                                        \
    int ret_code = (func);                                 \
    if (ret_code != 0) {                                   \
      throw ::tvm::ffi::details::MoveFromRaised();         \
    }                                                      \
  }

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_ERROR_H_
