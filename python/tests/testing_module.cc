// Test module for the Python package, built with our headers (tvm_module_library).
// Raw packed exports (`__tvm_ffi_<name>` written by hand) take any number of arguments;
// typed ones use TVM_FFI_DLL_EXPORT_TYPED_FUNC. Also registers a small reflected object type
// ("testing.Pair" with fields a, b and a subtype "testing.PairDerived") through the C API.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ffi = tvm::ffi;

namespace {

void SetNone(TVMFFIAny* out) {
  out->type_index = kTVMFFINone;
  out->zero_padding = 0;
  out->v_int64 = 0;
}

// ---- reflected test objects ------------------------------------------------------------------
class PairObj : public ffi::Object {
 public:
  int64_t a = 0;
  int64_t b = 0;
  static constexpr int32_t _type_child_slots = 2;
  static constexpr bool _type_child_slots_can_overflow = true;
  TVM_FFI_DECLARE_OBJECT_INFO("testing.Pair", PairObj, ffi::Object);
};

class PairDerivedObj : public PairObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.PairDerived", PairDerivedObj, PairObj);
};

int GetInt64Field(void* field, TVMFFIAny* out) {
  out->type_index = kTVMFFIInt;
  out->zero_padding = 0;
  std::memcpy(&out->v_int64, field, sizeof(int64_t));
  return 0;
}

int SetInt64Field(void* field, const TVMFFIAny* value) {
  if (value->type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "field expects an int");
    return -1;
  }
  std::memcpy(field, &value->v_int64, sizeof(int64_t));
  return 0;
}

TVMFFIByteArray Text(const char* s) { return TVMFFIByteArray{s, std::strlen(s)}; }

void RegisterPairFields() {
  PairObj probe;
  const char* base = reinterpret_cast<const char*>(static_cast<const ffi::Object*>(&probe));
  struct Spec {
    const char* name;
    int64_t offset;
    bool writable;
  } specs[] = {{"a", reinterpret_cast<const char*>(&probe.a) - base, false},
               {"b", reinterpret_cast<const char*>(&probe.b) - base, true}};
  for (const Spec& s : specs) {
    TVMFFIFieldInfo info;
    std::memset(&info, 0, sizeof(info));
    info.name = Text(s.name);
    info.doc = Text("an int64 field");
    info.metadata = Text("{\"type_schema\": {\"type\": \"int\"}}");
    info.flags = s.writable ? kTVMFFIFieldFlagBitMaskWritable : 0;
    info.size = sizeof(int64_t);
    info.alignment = alignof(int64_t);
    info.offset = s.offset;
    info.getter = GetInt64Field;
    info.setter = s.writable ? reinterpret_cast<void*>(SetInt64Field) : nullptr;
    SetNone(&info.default_value_or_factory);
    info.field_static_type_index = kTVMFFIInt;
    TVMFFITypeRegisterField(PairObj::RuntimeTypeIndex(), &info);
  }
}

const int kPairFieldsRegistered = (RegisterPairFields(), 0);

ffi::ObjectRef MakePair(int64_t a, int64_t b, bool derived) {
  if (derived) {
    ffi::ObjectPtr<PairDerivedObj> p = ffi::make_object<PairDerivedObj>();
    p->a = a;
    p->b = b;
    return ffi::ObjectRef(ffi::ObjectPtr<ffi::Object>(std::move(p)));
  }
  ffi::ObjectPtr<PairObj> p = ffi::make_object<PairObj>();
  p->a = a;
  p->b = b;
  return ffi::ObjectRef(ffi::ObjectPtr<ffi::Object>(std::move(p)));
}

int64_t AddOne(int64_t x) { return x + 1; }

int64_t PairSum(const ffi::ObjectRef& obj) {
  const PairObj* p = obj.as<PairObj>();
  TVM_FFI_CHECK(p != nullptr, TypeError) << "expected a testing.Pair";
  return p->a + p->b;
}

void RaiseError(const ffi::String& kind, const ffi::String& msg) {
  throw ffi::Error(std::string(kind), std::string(msg),
                   std::string(TVMFFIBacktrace(__FILE__, __LINE__, "RaiseError", 0)->data));
}

int64_t UseCount(const ffi::ObjectRef& obj) {
  // Minus the reference the typed-argument conversion holds while we run.
  return obj.get()->use_count() - 1;
}

// ---- tensors (TensorView accepts Tensor objects and DLTensor*) -------------------------------
int64_t TensorNdim(ffi::TensorView t) { return t.ndim(); }
int64_t TensorShapeAt(ffi::TensorView t, int64_t i) { return t.shape()[i]; }
int64_t TensorStrideAt(ffi::TensorView t, int64_t i) { return t.strides()[i]; }
int64_t TensorByteOffset(ffi::TensorView t) { return static_cast<int64_t>(t.byte_offset()); }
int64_t TensorDataPtr(ffi::TensorView t) {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(t.data_ptr()) + t.byte_offset());
}
DLDataType TensorDType(ffi::TensorView t) { return t.dtype(); }
DLDevice TensorDevice(ffi::TensorView t) { return t.device(); }

/*! \brief Adds 1 to every element of a float32 tensor of any layout, in place. */
void AddOneF32(ffi::TensorView t) {
  TVM_FFI_CHECK(t.dtype().code == kDLFloat && t.dtype().bits == 32 && t.dtype().lanes == 1,
                TypeError)
      << "add_one_f32 expects float32";
  TVM_FFI_CHECK(t.device().device_type == kDLCPU, ValueError) << "add_one_f32 expects a CPU tensor";
  int64_t n = t.numel();
  std::vector<int64_t> index(t.ndim(), 0);
  char* base = static_cast<char*>(t.data_ptr()) + t.byte_offset();
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (int32_t d = 0; d < t.ndim(); ++d) off += index[d] * t.strides()[d];
    reinterpret_cast<float*>(base)[off] += 1.0f;
    for (int32_t d = t.ndim() - 1; d >= 0; --d) {
      if (++index[d] < t.shape()[d]) break;
      index[d] = 0;
    }
  }
}

/*! \brief Sum of the bytes of the elements a tensor of any layout covers, as a checksum. */
int64_t TensorByteSum(ffi::TensorView t) {
  int64_t n = t.numel();
  int lanes = t.dtype().lanes == 0 ? 1 : t.dtype().lanes;
  int64_t elem = (static_cast<int64_t>(t.dtype().bits) * lanes + 7) / 8;
  std::vector<int64_t> index(t.ndim(), 0);
  const unsigned char* base =
      static_cast<const unsigned char*>(t.data_ptr()) + t.byte_offset();
  int64_t sum = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (int32_t d = 0; d < t.ndim(); ++d) off += index[d] * t.strides()[d];
    for (int64_t b = 0; b < elem; ++b) sum += base[off * elem + b];
    for (int32_t d = t.ndim() - 1; d >= 0; --d) {
      if (++index[d] < t.shape()[d]) break;
      index[d] = 0;
    }
  }
  return sum;
}

// ---- threads ---------------------------------------------------------------------------------
/*!
 * \brief Calls f(thread, k) for k < calls_per_thread from `num_threads` native threads at once
 * and returns the sum of the (int) results; the first failure is re-raised.
 */
int64_t CallFromThreads(ffi::Function f, int64_t num_threads, int64_t calls_per_thread) {
  std::atomic<int64_t> total{0};
  std::mutex mutex;
  std::optional<ffi::Error> first_error;
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t]() {
      for (int64_t k = 0; k < calls_per_thread; ++k) {
        try {
          total += f(t, k).cast<int64_t>();
        } catch (const ffi::Error& err) {
          std::lock_guard<std::mutex> lock(mutex);
          if (!first_error.has_value()) first_error = err;
          return;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  if (first_error.has_value()) throw *first_error;
  return total.load();
}

/*! \brief Calls f(1, 2, 3) `n` times (C -> Python callback benchmark). */
int64_t CallRepeat3(ffi::Function f, int64_t n) {
  int64_t last = 0;
  for (int64_t i = 0; i < n; ++i) last = f(int64_t{1}, int64_t{2}, int64_t{3}).cast<int64_t>();
  return last;
}

/*! \brief Calls f() `n` times. */
void CallRepeat0(ffi::Function f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) f();
}

}  // namespace

// ---- raw packed exports -----------------------------------------------------------------------
extern "C" {

/*! \brief echo(x) -> x, the argument promoted to an owned value. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_echo(void*, const TVMFFIAny* args, int32_t num_args,
                                      TVMFFIAny* result) {
  if (num_args != 1) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "echo expects exactly one argument");
    return -1;
  }
  return TVMFFIAnyViewToOwnedAny(&args[0], result);
}

/*! \brief nop(*args) -> None. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_nop(void*, const TVMFFIAny*, int32_t, TVMFFIAny*) { return 0; }

/*! \brief apply(f, *args) -> f(*args): the callee's result and error pass straight through. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_apply(void*, const TVMFFIAny* args, int32_t num_args,
                                       TVMFFIAny* result) {
  if (num_args < 1 || args[0].type_index != kTVMFFIFunction) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "apply expects a Function first");
    return -1;
  }
  return TVMFFIFunctionCall(args[0].v_obj, const_cast<TVMFFIAny*>(args + 1), num_args - 1,
                            result);
}

/*! \brief num_args(*args) -> int. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_num_args(void*, const TVMFFIAny*, int32_t num_args,
                                          TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = num_args;
  return 0;
}

/*! \brief type_index(x) -> the type index the module received. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_type_index(void*, const TVMFFIAny* args, int32_t num_args,
                                            TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = num_args > 0 ? args[0].type_index : -1;
  return 0;
}

}  // extern "C"

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_error, RaiseError)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_pair, MakePair)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(pair_sum, PairSum)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(use_count, UseCount)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_ndim, TensorNdim)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_shape_at, TensorShapeAt)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_stride_at, TensorStrideAt)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_byte_offset, TensorByteOffset)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_data_ptr, TensorDataPtr)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_dtype, TensorDType)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_device, TensorDevice)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_byte_sum, TensorByteSum)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_f32, AddOneF32)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_from_threads, CallFromThreads)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_repeat3, CallRepeat3)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_repeat0, CallRepeat0)

// The same add_one, also reachable as system_lib("pytest.")["add_one"]: registered the way
// statically linked libraries register their symbols.
namespace {
const int kSystemLibRegistered = TVMFFIEnvModRegisterSystemLibSymbol(
    "__tvm_ffi_pytest.add_one", reinterpret_cast<void*>(__tvm_ffi_add_one));
}  // namespace
