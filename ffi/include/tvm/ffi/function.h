/*
 * Functions: FunctionObj (the ABI's callable object), Function (a reference with a variadic
 * call operator), TypedFunction<R(Args...)>, and the macro that exports a typed C++ function
 * from a shared library as `__tvm_ffi_<name>`.
 *
 * Every call goes through `safe_call`. Functions created here leave `cpp_call` NULL, so other
 * binaries never take a C++-ABI shortcut into this one.
 */
#ifndef TVM_FFI_FUNCTION_H_
#define TVM_FFI_FUNCTION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief The Function object: header + TVMFFIFunctionCell at +24. */
class FunctionObj : public Object {
 public:
  TVMFFIFunctionCell cell;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Function", FunctionObj, Object, kTVMFFIFunction);
};

/*! \brief Borrowed positional arguments of a packed call. */
class PackedArgs {
 public:
  PackedArgs(const AnyView* data, int32_t size) : data_(data), size_(size) {}
  int32_t size() const { return size_; }
  const AnyView& operator[](int32_t i) const { return data_[i]; }
  const AnyView* data() const { return data_; }
  /*! \brief The raw C array (AnyView has exactly the TVMFFIAny layout). */
  const TVMFFIAny* raw() const { return reinterpret_cast<const TVMFFIAny*>(data_); }

 private:
  const AnyView* data_;
  int32_t size_;
};
static_assert(sizeof(AnyView) == sizeof(TVMFFIAny), "AnyView must be a bare TVMFFIAny");
static_assert(sizeof(Any) == sizeof(TVMFFIAny), "Any must be a bare TVMFFIAny");

namespace details {

/*! \brief A function object holding a C++ packed callable `void(PackedArgs, Any*)`. */
template <typename TCallable>
class PackedFunctionObj : public FunctionObj {
 public:
  explicit PackedFunctionObj(TCallable callable) : callable_(std::move(callable)) {
    cell.safe_call = SafeCall;
    cell.cpp_call = nullptr;
  }

 private:
  static int SafeCall(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    TVM_FFI_SAFE_CALL_BEGIN();
    auto* self = static_cast<PackedFunctionObj*>(
        static_cast<FunctionObj*>(ObjectUnsafe::FromHandle(handle)));
    Any rv;
    self->callable_(PackedArgs(reinterpret_cast<const AnyView*>(args), num_args), &rv);
    *result = rv.release();
    TVM_FFI_SAFE_CALL_END();
  }
  TCallable callable_;
};

/*! \brief Signature introspection for lambdas, function pointers and std::function. */
template <typename T>
struct FunctionSignature : FunctionSignature<decltype(&T::operator())> {};
template <typename R, typename... Args>
struct FunctionSignature<R (*)(Args...)> {
  using Return = R;
  using ArgTuple = std::tuple<Args...>;
  static constexpr size_t kNumArgs = sizeof...(Args);
};
template <typename R, typename... Args>
struct FunctionSignature<R(Args...)> : FunctionSignature<R (*)(Args...)> {};
template <typename C, typename R, typename... Args>
struct FunctionSignature<R (C::*)(Args...) const> : FunctionSignature<R (*)(Args...)> {};
template <typename C, typename R, typename... Args>
struct FunctionSignature<R (C::*)(Args...)> : FunctionSignature<R (*)(Args...)> {};

template <typename T>
using ArgStorage = std::remove_const_t<std::remove_reference_t<T>>;

/*! \brief "name(int, str) -> int" for error messages. */
template <typename R, typename... Args>
std::string SignatureString(const std::string& name) {
  std::string out = name + "(";
  size_t i = 0;
  ((out += (i++ == 0 ? "" : ", ") + TypeTraitsNoCR<Args>::TypeStr()), ...);
  out += ") -> ";
  if constexpr (std::is_void_v<R>) {
    out += "None";
  } else {
    out += TypeTraitsNoCR<R>::TypeStr();
  }
  return out;
}

/*! \brief Converts argument i; `sig` builds the signature text only when reporting an error. */
template <typename Arg, typename SigFn>
ArgStorage<Arg> UnpackArg(const PackedArgs& args, int32_t i, const SigFn& sig) {
  std::optional<ArgStorage<Arg>> value = TypeTraitsNoCR<Arg>::TryCastFromAnyView(args.raw() + i);
  if (!value.has_value()) {
    TVM_FFI_THROW(TypeError) << "Mismatched type on argument #" << i << " when calling: `"
                             << sig() << "`. Expected `" << TypeTraitsNoCR<Arg>::TypeStr()
                             << "` but got `" << TypeIndexToKey(args[i].type_index()) << "`";
  }
  return std::move(*value);
}

template <typename R, typename... Args, typename TCallable, typename SigFn, size_t... I>
void CallTypedUnpacked(const TCallable& f, const PackedArgs& args, Any* rv, const SigFn& sig,
                       std::index_sequence<I...>) {
  if (args.size() != static_cast<int32_t>(sizeof...(Args))) {
    TVM_FFI_THROW(TypeError) << "Mismatched number of arguments when calling: `" << sig()
                             << "`. Expected " << sizeof...(Args) << " but got " << args.size()
                             << " arguments";
  }
  // Arguments are converted left to right into a tuple first so errors name the first bad one.
  std::tuple<ArgStorage<Args>...> values{UnpackArg<Args>(args, static_cast<int32_t>(I), sig)...};
  if constexpr (std::is_void_v<R>) {
    f(std::get<I>(std::move(values))...);
  } else {
    *rv = Any(f(std::get<I>(std::move(values))...));
  }
}

template <typename TCallable, typename Tuple>
struct TypedCaller;
template <typename TCallable, typename... Args>
struct TypedCaller<TCallable, std::tuple<Args...>> {
  using R = typename FunctionSignature<TCallable>::Return;
  template <typename SigFn>
  static void Call(const TCallable& f, const PackedArgs& args, Any* rv, const SigFn& sig) {
    CallTypedUnpacked<R, Args...>(f, args, rv, sig, std::index_sequence_for<Args...>{});
  }
  static std::string Signature(const std::string& name) { return SignatureString<R, Args...>(name); }
};

}  // namespace details

/*!
 * \brief A reference to any callable that follows the ABI (C, C++, Python, another module).
 */
class Function : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Function, ObjectRef, FunctionObj);

  /*! \brief Wraps `void(PackedArgs args, Any* rv)`. */
  template <typename TCallable>
  static Function FromPacked(TCallable callable) {
    return Function(ObjectPtr<FunctionObj>(
        make_object<details::PackedFunctionObj<TCallable>>(std::move(callable))));
  }

  /*!
   * \brief Wraps a typed C++ callable; arguments are converted with TypeTraits and mismatches
   * raise TypeError naming `name` and the argument position.
   */
  template <typename TCallable>
  static Function FromTyped(TCallable callable, std::string name = "<anonymous>") {
    using Sig = details::FunctionSignature<std::decay_t<TCallable>>;
    using Caller = details::TypedCaller<std::decay_t<TCallable>, typename Sig::ArgTuple>;
    return FromPacked([f = std::move(callable), name = std::move(name)](PackedArgs args, Any* rv) {
      Caller::Call(f, args, rv, [&name]() { return Caller::Signature(name); });
    });
  }

  /*!
   * \brief Wraps a C safe-call function (see TVMFFIFunctionCreate for `self`/`deleter`).
   */
  static Function FromExternC(void* self, TVMFFISafeCallType safe_call,
                              void (*deleter)(void* self)) {
    TVMFFIObjectHandle handle = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionCreate(self, safe_call, deleter, &handle));
    return Function(details::ObjectUnsafe::PtrFromOwnedHandle<FunctionObj>(handle));
  }

  /*! \brief A global function by name, or nullopt. */
  static std::optional<Function> GetGlobal(std::string_view name) {
    TVMFFIByteArray arr = details::MakeByteArray(name.data(), name.size());
    TVMFFIObjectHandle handle = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionGetGlobal(&arr, &handle));
    if (handle == nullptr) return std::nullopt;
    return Function(details::ObjectUnsafe::PtrFromOwnedHandle<FunctionObj>(handle));
  }
  /*! \brief A global function by name; ValueError when it is not registered. */
  static Function GetGlobalRequired(std::string_view name) {
    std::optional<Function> f = GetGlobal(name);
    if (!f.has_value()) {
      TVM_FFI_THROW(ValueError) << "Function `" << name << "` is not registered";
    }
    return *f;
  }
  /*! \brief Registers `f` as global `name`. */
  static void SetGlobal(std::string_view name, const Function& f, bool allow_override = false) {
    TVMFFIByteArray arr = details::MakeByteArray(name.data(), name.size());
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionSetGlobal(
        &arr, details::ObjectUnsafe::ToHandle(f.get()), allow_override ? 1 : 0));
  }

  /*! \brief Calls with already packed arguments; the result is owned by `*rv`. */
  void CallPacked(const AnyView* args, int32_t num_args, Any* rv) const {
    TVMFFIObjectHandle handle = details::ObjectUnsafe::ToHandle(get());
    TVMFFIAny result;
    details::InitNone(&result);
    int ret = get()->cell.safe_call(handle, reinterpret_cast<const TVMFFIAny*>(args), num_args,
                                    &result);
    if (ret != 0) throw details::MoveFromRaised();
    *rv = Any::FromOwnedRaw(result);
  }

  /*! \brief Calls with any arguments convertible to values. */
  template <typename... Args>
  Any operator()(Args&&... args) const {
    constexpr size_t kNum = sizeof...(Args);
    AnyView packed[kNum == 0 ? 1 : kNum] = {AnyView(std::forward<Args>(args))...};
    Any rv;
    CallPacked(packed, static_cast<int32_t>(kNum), &rv);
    return rv;
  }
};

/*! \brief A Function with a fixed C++ signature at the call site. */
template <typename Signature>
class TypedFunction;

template <typename R, typename... Args>
class TypedFunction<R(Args...)> {
 public:
  TypedFunction() = default;
  TypedFunction(Function f) : f_(std::move(f)) {}  // NOLINT(*)
  template <typename TCallable,
            typename = std::enable_if_t<std::is_invocable_r_v<R, TCallable, Args...> &&
                                        !std::is_same_v<std::decay_t<TCallable>, Function>>>
  TypedFunction(TCallable callable, std::string name = "<anonymous>")  // NOLINT(*)
      : f_(Function::FromTyped(
            std::function<R(Args...)>(std::move(callable)), std::move(name))) {}

  R operator()(Args... args) const {
    Any rv = f_(std::forward<Args>(args)...);
    if constexpr (!std::is_void_v<R>) return rv.cast<R>();
  }
  const Function& packed() const { return f_; }
  operator Function() const { return f_; }  // NOLINT(*)

 private:
  Function f_;
};

template <typename R, typename... Args>
struct TypeTraits<TypedFunction<R(Args...)>> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const TypedFunction<R(Args...)>& f, TVMFFIAny* out) {
    TypeTraits<Function>::CopyToAnyView(f.packed(), out);
  }
  static void MoveToAny(TypedFunction<R(Args...)> f, TVMFFIAny* out) {
    TypeTraits<Function>::MoveToAny(f.packed(), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return TypeTraits<Function>::CheckAnyStrict(v); }
  static std::optional<TypedFunction<R(Args...)>> TryCastFromAnyView(const TVMFFIAny* v) {
    std::optional<Function> f = TypeTraits<Function>::TryCastFromAnyView(v);
    if (!f.has_value()) return std::nullopt;
    return TypedFunction<R(Args...)>(*f);
  }
  static std::string TypeStr() { return "ffi.Function"; }
};

namespace details {
/*! \brief Body of an exported symbol: unpack, call, convert errors. */
template <typename TCallable>
int InvokeExported(const TCallable& f, const char* name, const TVMFFIAny* args, int32_t num_args,
                   TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  using Sig = FunctionSignature<std::decay_t<TCallable>>;
  using Caller = TypedCaller<std::decay_t<TCallable>, typename Sig::ArgTuple>;
  Any rv;
  Caller::Call(f, PackedArgs(reinterpret_cast<const AnyView*>(args), num_args), &rv,
               [name]() { return Caller::Signature(name); });
  *result = rv.release();
  TVM_FFI_SAFE_CALL_END();
}
}  // namespace details

/*!
 * \brief Exports a typed C++ function from a shared library as the ABI symbol
 * `__tvm_ffi_<ExportName>`, callable through load_module(...)[ExportName].
 */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC(ExportName, Function)                                    \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_##ExportName(void* self, const TVMFFIAny* args, \
                                                           int32_t num_args,                  \
                                                           TVMFFIAny* result) {               \
    (void)self;                                                                               \
    return ::tvm::ffi::details::InvokeExported(Function, #ExportName, args, num_args, result); \
  }

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_FUNCTION_H_
