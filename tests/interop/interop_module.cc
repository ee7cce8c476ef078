/*
 * One source, two builds: compiled against apache-tvm-ffi's headers (reference_module.so) and
 * against ours (our_module.so). Each build is loaded by the *other* implementation's loader:
 * the reference-header build by our libtvm_ffi (interop_test.cc), ours by the real
 * apache-tvm-ffi Python package (test_real_tvm_ffi_loads_our_module.py). Header code runs
 * inline in the module, so this checks object layouts, refcounting, Map hashing and probing,
 * error objects and the calling convention in both directions.
 *
 * It also defines a module kind (CustomModuleObj, a ModuleObj subclass): its vtable is built
 * from the headers of the build and its base-class parts (vtable, typeinfo, ImportModule,
 * GetFunction(name, query_imports) ...) come from whichever libtvm_ffi.so is loaded, so the
 * C++ ABI of ModuleObj (extra/module.h) is exercised in both directions too.
 *
 * Only the API both header sets share is used (tvm::ffi names).
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <stdexcept>
#include <string>

namespace ffi = tvm::ffi;

namespace {

int64_t AddInt(int64_t a, int64_t b) { return a + b; }
double MulFloat(double a, double b) { return a * b; }
bool NotBool(bool b) { return !b; }
bool IsNone(ffi::Any v) { return v == nullptr; }
ffi::Any Echo(ffi::Any v) { return v; }
int64_t TypeIndexOf(ffi::Any v) { return v.type_index(); }

ffi::String Concat(ffi::String a, ffi::String b) { return std::string(a) + std::string(b); }
int64_t StrLen(ffi::String s) { return static_cast<int64_t>(s.size()); }
ffi::Bytes ReverseBytes(ffi::Bytes b) {
  std::string s(b.data(), b.size());
  return ffi::Bytes(std::string(s.rbegin(), s.rend()));
}

double TensorSum(ffi::TensorView t) {
  const float* data = static_cast<const float*>(t.data_ptr());
  double total = 0;
  for (int64_t i = 0; i < t.numel(); ++i) total += data[i];
  return total;
}
void TensorScale(ffi::TensorView t, double factor) {
  float* data = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) data[i] = static_cast<float>(data[i] * factor);
}

int64_t ArraySum(ffi::Array<int64_t> a) {
  int64_t total = 0;
  for (int64_t x : a) total += x;
  return total;
}
ffi::Array<ffi::String> ArrayOfStrings(int64_t n) {
  ffi::Array<ffi::String> out;
  for (int64_t i = 0; i < n; ++i) out.push_back("item-" + std::to_string(i) + "-with-a-long-tail");
  return out;
}
ffi::Array<ffi::Any> ArrayAppend(ffi::Array<ffi::Any> a, ffi::Any v) {
  a.push_back(v);  // copy-on-write: the caller's array is not changed
  return a;
}

int64_t MapGet(ffi::Map<ffi::String, int64_t> m, ffi::String key) { return m.at(key); }
int64_t MapCount(ffi::Map<ffi::Any, ffi::Any> m, ffi::Any key) {
  return static_cast<int64_t>(m.count(key));
}
ffi::Map<ffi::String, int64_t> MapMake(int64_t n) {
  ffi::Map<ffi::String, int64_t> m;
  for (int64_t i = 0; i < n; ++i) m.Set("key" + std::to_string(i), i * i);
  return m;
}
ffi::Map<ffi::Any, ffi::Any> MapSet(ffi::Map<ffi::Any, ffi::Any> m, ffi::Any k, ffi::Any v) {
  m.Set(k, v);
  return m;
}
ffi::Map<ffi::Any, ffi::Any> MapErase(ffi::Map<ffi::Any, ffi::Any> m, ffi::Any k) {
  m.erase(k);
  return m;
}
int64_t MapSize(ffi::Map<ffi::Any, ffi::Any> m) { return static_cast<int64_t>(m.size()); }
void DictSet(ffi::Dict<ffi::String, int64_t> d, ffi::String k, int64_t v) { d.Set(k, v); }

ffi::Any CallCallback(ffi::Function f, int64_t x) { return f(x); }

void ThrowValueError(ffi::String msg) { TVM_FFI_THROW(ValueError) << msg; }
void ThrowKeyError(ffi::String msg) { TVM_FFI_THROW(KeyError) << msg; }
void ThrowStd() { throw std::runtime_error("a std::runtime_error"); }

/*! A module kind of this binary: functions "greet" and "tag", a doc for "greet". */
class CustomModuleObj : public ffi::ModuleObj {
 public:
  explicit CustomModuleObj(std::string tag) : tag_(std::move(tag)) {}
  const char* kind() const override { return "interop.custom"; }
  int GetPropertyMask() const override { return 0b010; }  // runnable
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) override {
    std::string tag = tag_;
    if (name == "greet") {
      return ffi::Function::FromTyped([tag](ffi::String who) {
        return ffi::String("hello " + std::string(who) + " from " + tag);
      });
    }
    if (name == "tag_" + tag_) return ffi::Function::FromTyped([tag]() { return ffi::String(tag); });
    return std::nullopt;
  }
  ffi::Optional<ffi::String> GetFunctionDoc(const ffi::String& name) override {
    if (name == "greet") return ffi::String("says hello (" + tag_ + ")");
    return std::nullopt;
  }
  ffi::String InspectSource(const ffi::String&) const override { return "source of " + tag_; }

 private:
  std::string tag_;
};

ffi::Module MakeCustom(ffi::String tag) {
  return ffi::Module(ffi::make_object<CustomModuleObj>(std::string(tag)));
}
/*! outer imports inner (ModuleObj::ImportModule of the loaded libtvm_ffi, via the vtable). */
ffi::Module MakeCustomChain(ffi::String outer, ffi::String inner) {
  ffi::Module a = MakeCustom(outer);
  a->ImportModule(MakeCustom(inner));
  return a;
}
/*! Out-of-line GetFunction(name, query_imports) on any module; None when absent. */
ffi::Any FindFunction(ffi::Module mod, ffi::String name, bool query_imports) {
  ffi::Optional<ffi::Function> f = mod->GetFunction(name, query_imports);
  if (!f.has_value()) return ffi::Any();
  return f.value();
}
bool ImplementsFunction(ffi::Module mod, ffi::String name, bool query_imports) {
  return mod->ImplementsFunction(name, query_imports);
}
ffi::Any FunctionDoc(ffi::Module mod, ffi::String name, bool query_imports) {
  ffi::Optional<ffi::String> doc = mod->GetFunctionDoc(name, query_imports);
  if (!doc.has_value()) return ffi::Any();
  return doc.value();
}
void ImportInto(ffi::Module mod, ffi::Module other) { mod->ImportModule(other); }
/*! Kinds of the imports, read through imports() (an Array<Any> of modules). */
ffi::Array<ffi::String> ImportKinds(ffi::Module mod) {
  ffi::Array<ffi::String> kinds;
  for (const ffi::Any& m : mod->imports()) kinds.push_back(m.cast<ffi::Module>()->kind());
  return kinds;
}
int64_t ClearImports(ffi::Module mod) {
  mod->ClearImports();
  return static_cast<int64_t>(mod->imports().size());
}
/*! A cycle must be refused by ImportModule (the exception is the loaded library's). */
bool CycleRefused(ffi::Module a, ffi::Module b) {
  a->ImportModule(b);
  bool refused = false;
  try {
    b->ImportModule(a);
  } catch (...) {
    refused = true;
  }
  a->ClearImports();
  return refused;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_custom, MakeCustom);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_custom_chain, MakeCustomChain);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(find_function, FindFunction);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(implements_function, ImplementsFunction);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(function_doc, FunctionDoc);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(import_into, ImportInto);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(import_kinds, ImportKinds);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(clear_imports, ClearImports);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(cycle_refused, CycleRefused);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(mul_float, MulFloat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(not_bool, NotBool);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(is_none, IsNone);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(echo, Echo);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(type_index_of, TypeIndexOf);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(concat, Concat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(str_len, StrLen);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(reverse_bytes, ReverseBytes);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_sum, TensorSum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_scale, TensorScale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(array_sum, ArraySum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(array_of_strings, ArrayOfStrings);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(array_append, ArrayAppend);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_get, MapGet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_count, MapCount);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_make, MapMake);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_set, MapSet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_erase, MapErase);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_size, MapSize);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dict_set, DictSet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_callback, CallCallback);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(throw_value_error, ThrowValueError);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(throw_key_error, ThrowKeyError);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(throw_std, ThrowStd);

#if __has_include(<tvm/ffi/big_int.h>)
// Only the reference headers ship BigInt arithmetic: the module computes on a BigInt built
// by our library and returns one built by its own inline code.
#include <tvm/ffi/big_int.h>
namespace {
ffi::BigInt BigIntAdd(ffi::BigInt a, ffi::BigInt b) {
  a += b;
  return a;
}
}  // namespace
TVM_FFI_DLL_EXPORT_TYPED_FUNC(bigint_add, BigIntAdd);
#endif
