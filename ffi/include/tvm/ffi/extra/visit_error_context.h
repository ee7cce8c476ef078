/*
 * VisitErrorContext (apache-tvm-ffi 0.1.16's extra/visit_error_context.h): an object attached
 * to an Error's extra context that records the objects a recursive visit was inside when the
 * error was raised (innermost first), and FindAccessPaths, which turns that record into the
 * access paths from a root object to the failing spot.
 *
 * Layout (type key "ffi.VisitErrorContext", 40 bytes, mutable, structural kind Unsupported):
 *   reverse_visit_pattern: List<ObjectRef> @24   prev_error_context: Optional<ObjectRef> @32
 *
 * Instrumenting a visitor:
 *   void Visit(const ObjectRef& node) {
 *     TVM_FFI_VISIT_BEGIN();
 *     ...                      // may throw; TVM_FFI_VISIT_THROW(Kind, child) << "msg" names
 *                              // the child as the innermost frame
 *     TVM_FFI_VISIT_END(node); // on an Error: append `node` to the context, rethrow
 *   }
 * and at the top: `if (auto ctx = VisitErrorContext::TryGetFromError(err))
 *   paths = VisitErrorContext::FindAccessPaths(root, *ctx);`
 */
#ifndef TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
#define TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>

#include <optional>
#include <string>
#include <utility>

namespace tvm {
namespace ffi {

class VisitErrorContextObj : public Object {
 public:
  /*! \brief The objects being visited when the error was raised, innermost first. */
  List<ObjectRef> reverse_visit_pattern;
  /*! \brief The error's extra context before this one replaced it. */
  Optional<ObjectRef> prev_error_context;

  static constexpr bool _type_mutable = true;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.VisitErrorContext", VisitErrorContextObj, Object);
};

class VisitErrorContext : public ObjectRef {
 public:
  /*! \brief The VisitErrorContext attached to err, or nothing. */
  static Optional<VisitErrorContext> TryGetFromError(const Error& err) {
    std::optional<ObjectRef> ctx = err.extra_context();
    if (ctx.has_value() && ctx->as<VisitErrorContextObj>() != nullptr) {
      return VisitErrorContext(GetObjectPtr<VisitErrorContextObj>(*ctx));
    }
    return std::nullopt;
  }

  /*!
   * \brief Every path from root that passes through the recorded objects in order (outermost
   * record first; consecutive duplicates and null records are ignored), ending at the
   * innermost record, in depth-first field/item order. With allow_prefix_match, a descent
   * that matched some but not all records and found no deeper match also yields the path to
   * the last object it matched (never the root itself). Objects of types without reflection
   * metadata (containers are walked; Shape, Tensor, Function ... are not) are not searched.
   */
  TVM_FFI_EXTRA_CXX_API static Array<reflection::AccessPath> FindAccessPaths(
      const ObjectRef& root, const VisitErrorContext& visit_context,
      bool allow_prefix_match = false);

  explicit VisitErrorContext(ObjectPtr<VisitErrorContextObj> n) : ObjectRef(std::move(n)) {
    TVM_FFI_ICHECK(data_ != nullptr);
  }
  explicit VisitErrorContext(details::UnsafeInit tag) : ObjectRef(tag) {}
  const VisitErrorContextObj* operator->() const {
    return static_cast<const VisitErrorContextObj*>(data_.get());
  }
  const VisitErrorContextObj* get() const { return operator->(); }
  using ContainerType = VisitErrorContextObj;
  static constexpr bool _type_is_nullable = false;
};

namespace details {

/*! \brief A context holding only `node`. */
inline VisitErrorContext MakeVisitErrorContext(const ObjectRef& node) {
  ObjectPtr<VisitErrorContextObj> obj = make_object<VisitErrorContextObj>();
  obj->reverse_visit_pattern = List<ObjectRef>{node};
  return VisitErrorContext(std::move(obj));
}

/*! \brief Appends `node` to err's VisitErrorContext, creating one (keeping the old context). */
inline void UpdateVisitErrorContext(Error& err, const ObjectRef& node) {  // NOLINT(*)
  std::optional<ObjectRef> extra = err.extra_context();
  if (extra.has_value()) {
    if (const VisitErrorContextObj* ctx = extra->as<VisitErrorContextObj>()) {
      List<ObjectRef> pattern = ctx->reverse_visit_pattern;  // shares the list object
      pattern.push_back(node);
      return;
    }
  }
  ObjectPtr<VisitErrorContextObj> ctx = make_object<VisitErrorContextObj>();
  ctx->reverse_visit_pattern = List<ObjectRef>{node};
  if (extra.has_value()) ctx->prev_error_context = *extra;
  TVMFFIErrorCell* cell = const_cast<TVMFFIErrorCell*>(ErrorCellOf(err.get()));
  if (cell->extra_context != nullptr) TVMFFIObjectDecRef(cell->extra_context);
  cell->extra_context = ObjectUnsafe::MoveToHandle(std::move(ctx));
}

/*! \brief Builds an Error whose extra context names `node` and throws it when destroyed. */
class VisitErrorBuilder {
 public:
  VisitErrorBuilder(const char* kind, const char* file, int line, const char* func,
                    ObjectRef node)
      : kind_(kind), backtrace_(TVMFFIBacktrace(file, line, func, 0)), node_(std::move(node)) {}
  [[noreturn]] ~VisitErrorBuilder() noexcept(false) {
    Error err(kind_, stream_.str(), std::string(backtrace_->data, backtrace_->size));
    TVMFFIErrorCell* cell = const_cast<TVMFFIErrorCell*>(ErrorCellOf(err.get()));
    cell->extra_context = ObjectUnsafe::MoveToHandle(MakeVisitErrorContext(node_));
    throw err;
  }
  std::ostringstream& stream() { return stream_; }

 private:
  std::string kind_;
  const TVMFFIByteArray* backtrace_;
  ObjectRef node_;
  std::ostringstream stream_;
};

}  // namespace details

/*! \brief Opens a visit body (pair with TVM_FFI_VISIT_END). */
#define TVM_FFI_VISIT_BEGIN() try {
/*! \brief Closes a visit body: an Error passing through gets `node` appended, and rethrown. */
#define TVM_FFI_VISIT_END(node)                                               \
  }                                                                           \
  catch (::tvm::ffi::Error & _tvm_ffi_visit_err_) {                           \
    ::tvm::ffi::details::UpdateVisitErrorContext(_tvm_ffi_visit_err_, (node)); \
    throw;                                                                    \
  }
/*! \brief Throws ErrorKind with `node` as the innermost recorded frame: `<< "message"`. */
#define TVM_FFI_VISIT_THROW(ErrorKind, node)                                         \
  ::tvm::ffi::details::VisitErrorBuilder(#ErrorKind, __FILE__, __LINE__, TVM_FFI_FUNC_SIG, \
                                         ::tvm::ffi::ObjectRef(node))                \
      .stream()

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
