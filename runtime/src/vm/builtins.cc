/*
 * Value builtins: shapes, tuples, checks and control helpers. The `err_ctx` argument of the
 * checks is text the code generator chose (e.g. "main: argument x"); it starts every message
 * so a failure names the function and value at fault.
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/runtime/tensor.h>

#include <cstring>
#include <sstream>

#include "../support/registry.h"
#include "executable.h"
#include "shape_heap.h"

namespace tvm {
namespace runtime {
namespace vm {
namespace {

/*! \brief The DLTensor of a Tensor object or a DLTensor* value, else nullptr. */
const DLTensor* AsDLTensor(const ffi::AnyView& v) {
  std::optional<DLTensor*> t = v.as<DLTensor*>();
  return t.has_value() ? *t : nullptr;
}

bool SameDType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

std::string DimsToText(const int64_t* dims, size_t n) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < n; ++i) os << (i ? ", " : "") << dims[i];
  os << "]";
  return os.str();
}

/*! \brief Reads element 0 of a one-element tensor as an integer truth value. */
bool ScalarTensorIsTrue(const DLTensor* t) {
  TVM_FFI_CHECK(ffi::details::ShapeNumel(t->shape, t->ndim) == 1, ValueError)
      << "read_if_cond: the condition tensor must have exactly one element";
  DLDataType dt = t->dtype;
  TVM_FFI_CHECK(dt.lanes == 1 && dt.bits % 8 == 0 && dt.bits <= 64, TypeError)
      << "read_if_cond: unsupported condition dtype " << DTypeToString(dt);
  unsigned char bytes[8] = {0};
  int64_t one = 1;
  DLTensor host{bytes, DLDevice{kDLCPU, 0}, 0, dt, &one, nullptr, 0};
  host.ndim = t->ndim == 0 ? 0 : 1;
  DLTensor src = *t;
  src.ndim = host.ndim;
  src.shape = &one;
  src.strides = nullptr;
  CopyFromTo(&src, &host);
  if (t->device.device_type != kDLCPU) {
    ffi::Function::GetGlobalRequired("runtime.DeviceStreamSync")(t->device,
                                                                  static_cast<void*>(nullptr));
  }
  if (dt.code == kDLFloat) {
    if (dt.bits == 32) {
      float f;
      std::memcpy(&f, bytes, 4);
      return f != 0;
    }
    if (dt.bits == 64) {
      double d;
      std::memcpy(&d, bytes, 8);
      return d != 0;
    }
    TVM_FFI_THROW(TypeError) << "read_if_cond: unsupported float width " << int{dt.bits};
  }
  for (int i = 0; i < dt.bits / 8; ++i) {
    if (bytes[i] != 0) return true;
  }
  return false;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  // ---- shapes ----
  RegisterRuntimeGlobal("vm.builtin.shape_of", [](DLTensor* t) {
    return ffi::Shape(t->shape, t->shape + t->ndim);
  });
  // make_shape(d_0, ..., d_{n-1}) from ints, or make_shape(heap, ndim, (code, value)...)
  // reading slots of a shape heap (shape_heap.h) when the first argument is a Tensor.
  RegisterRuntimePacked("vm.builtin.make_shape", [](ffi::PackedArgs args, ffi::Any* rv) {
    if (args.size() > 0 && (args[0].is_none() || AsDLTensor(args[0]) != nullptr)) {
      *rv = MakeShapeWithHeap(args);
      return;
    }
    std::vector<int64_t> dims(args.size());
    for (int i = 0; i < args.size(); ++i) {
      std::optional<int64_t> d = args[i].as<int64_t>();
      TVM_FFI_CHECK(d.has_value(), TypeError)
          << "make_shape: dimension " << i << " must be an int, got `" << args[i].GetTypeKey()
          << "`";
      dims[i] = *d;
    }
    *rv = ffi::Shape(dims);
  });
  // match_shape(value, err_ctx, d_0, ..., d_{n-1}): each d is an int that must equal the
  // dimension, or None to accept any. Symbolic dimensions are bound by reading them with
  // tuple_getitem(shape_of(x), i) and passing the register to later matches. When the second
  // argument is not a string it is a shape heap (or None): the heap form of shape_heap.h.
  RegisterRuntimePacked("vm.builtin.match_shape", [](ffi::PackedArgs args, ffi::Any*) {
    if (args.size() >= 2 && args[1].as<ffi::String>() == std::nullopt) {
      MatchShapeWithHeap(args);
      return;
    }
    TVM_FFI_CHECK(args.size() >= 2, TypeError) << "match_shape(value, err_ctx, dims...)";
    ffi::String ctx = args[1].cast<ffi::String>();
    const std::string_view err_ctx = ctx.view();
    Dims dims = DimsOf(args[0], err_ctx);
    size_t ndim = static_cast<size_t>(args.size() - 2);
    bool ok = static_cast<size_t>(dims.size) == ndim;
    for (size_t i = 0; ok && i < ndim; ++i) {
      const ffi::AnyView& want = args[static_cast<int>(i) + 2];
      if (want.is_none()) continue;
      std::optional<int64_t> w = want.as<int64_t>();
      TVM_FFI_CHECK(w.has_value(), TypeError)
          << err_ctx << ": match_shape expects int or None dimensions";
      ok = *w == dims.data[i];
    }
    if (!ok) {
      std::ostringstream want;
      want << "[";
      for (size_t i = 0; i < ndim; ++i) {
        const ffi::AnyView& d = args[static_cast<int>(i) + 2];
        want << (i ? ", " : "") << (d.is_none() ? "?" : std::to_string(d.cast<int64_t>()));
      }
      want << "]";
      TVM_FFI_THROW(ValueError) << err_ctx << ": expected shape " << want.str() << ", got "
                                << DimsToText(dims.data, static_cast<size_t>(dims.size));
    }
  });

  // tensor_to_shape(t): the values of a 1-d integer tensor in host memory as a Shape (the
  // lowering of relax.tensor_to_shape); a match_cast then binds its symbolic dimensions.
  RegisterRuntimeGlobal("vm.builtin.tensor_to_shape", [](ffi::AnyView value) {
    const DLTensor* t = AsDLTensor(value);
    TVM_FFI_CHECK(t != nullptr, TypeError)
        << "tensor_to_shape: expected a Tensor, got `" << value.GetTypeKey() << "`";
    TVM_FFI_CHECK(t->ndim == 1, ValueError) << "tensor_to_shape: the tensor must be 1-d, got " << t->ndim << "-d";
    TVM_FFI_CHECK(t->device.device_type == kDLCPU, ValueError) << "tensor_to_shape: the tensor must be on the CPU";
    DLDataType dt = t->dtype;
    TVM_FFI_CHECK((dt.code == kDLInt || dt.code == kDLUInt) && dt.lanes == 1 &&
                      (dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64),
                  TypeError)
        << "tensor_to_shape: the tensor must have an integer dtype, got " << DTypeToString(dt);
    const char* base = static_cast<const char*>(t->data) + t->byte_offset;
    int64_t stride = t->strides ? t->strides[0] : 1;
    std::vector<int64_t> dims(static_cast<size_t>(t->shape[0]));
    for (size_t i = 0; i < dims.size(); ++i) {
      const char* p = base + static_cast<int64_t>(i) * stride * (dt.bits / 8);
      int64_t v = 0;
      if (dt.bits == 64) std::memcpy(&v, p, 8);
      else if (dt.bits == 32) { int32_t w; std::memcpy(&w, p, 4); v = dt.code == kDLInt ? w : static_cast<uint32_t>(w); }
      else if (dt.bits == 16) { int16_t w; std::memcpy(&w, p, 2); v = dt.code == kDLInt ? w : static_cast<uint16_t>(w); }
      else { int8_t w; std::memcpy(&w, p, 1); v = dt.code == kDLInt ? w : static_cast<uint8_t>(w); }
      dims[i] = v;
    }
    return ffi::Shape(dims);
  });

  // shape_to_tensor(s): a Shape's values as a new 1-d int64 host tensor (the lowering of
  // relax.shape_to_tensor; ONNX Shape of a tensor with symbolic dimensions).
  RegisterRuntimeGlobal("vm.builtin.shape_to_tensor", [](const ffi::Shape& shape) {
    ffi::Tensor out = runtime::Empty({static_cast<int64_t>(shape.size())}, DLDataType{kDLInt, 64, 1},
                                     DLDevice{kDLCPU, 0});
    if (shape.size()) std::memcpy(out->data, shape.data(), shape.size() * sizeof(int64_t));
    return out;
  });

  // ---- checks ----
  RegisterRuntimeGlobal("vm.builtin.check_tensor_info", [](ffi::AnyView value, int64_t ndim,
                                                           std::optional<DLDataType> dtype,
                                                           const ffi::String& err_ctx) {
    // Runs for every tensor input of every call: err_ctx stays an ffi::String (a std::string
    // parameter copied the ~20-character context into a new allocation each time).
    const DLTensor* t = AsDLTensor(value);
    TVM_FFI_CHECK(t != nullptr, TypeError)
        << err_ctx << ": expected a Tensor, got `" << value.GetTypeKey() << "`";
    TVM_FFI_CHECK(ndim == -1 || t->ndim == ndim, ValueError)
        << err_ctx << ": expected a Tensor with " << ndim << " dimensions, got " << t->ndim;
    TVM_FFI_CHECK(!dtype.has_value() || SameDType(*dtype, t->dtype), ValueError)
        << err_ctx << ": expected a Tensor of dtype " << DTypeToString(*dtype) << ", got "
        << DTypeToString(t->dtype);
  });
  RegisterRuntimeGlobal("vm.builtin.check_shape_info",
                        [](ffi::AnyView value, int64_t ndim, const ffi::String& err_ctx) {
                          TVM_FFI_CHECK(value.type_index() == kTVMFFIShape, TypeError)
                              << err_ctx << ": expected a Shape, got `" << value.GetTypeKey()
                              << "`";
                          size_t n = value.cast<ffi::Shape>().size();
                          TVM_FFI_CHECK(ndim == -1 || static_cast<int64_t>(n) == ndim, ValueError)
                              << err_ctx << ": expected a Shape of " << ndim
                              << " dimensions, got " << n;
                        });
  RegisterRuntimeGlobal("vm.builtin.check_tuple_info",
                        [](ffi::AnyView value, int64_t size, const ffi::String& err_ctx) {
                          std::optional<ffi::Array<ffi::Any>> arr =
                              value.as<ffi::Array<ffi::Any>>();
                          TVM_FFI_CHECK(arr.has_value(), TypeError)
                              << err_ctx << ": expected a tuple, got `" << value.GetTypeKey()
                              << "`";
                          TVM_FFI_CHECK(size == -1 || static_cast<int64_t>(arr->size()) == size,
                                        ValueError)
                              << err_ctx << ": expected a tuple of " << size << " items, got "
                              << arr->size();
                        });

  // ---- tuples ----
  RegisterRuntimePacked("vm.builtin.make_tuple", [](ffi::PackedArgs args, ffi::Any* rv) {
    std::vector<ffi::Any> items(args.data(), args.data() + args.size());
    *rv = ffi::Array<ffi::Any>(items);
  });
  // tuple_getitem(tuple, i): an Array, List or Shape; negative i counts from the end.
  RegisterRuntimeGlobal("vm.builtin.tuple_getitem", [](ffi::AnyView tuple, int64_t i) -> ffi::Any {
    int64_t n = 0;
    if (tuple.type_index() == kTVMFFIShape) {
      ffi::Shape s = tuple.cast<ffi::Shape>();
      n = static_cast<int64_t>(s.size());
      if (i < 0) i += n;
      TVM_FFI_CHECK(i >= 0 && i < n, IndexError)
          << "tuple_getitem: index out of range for a Shape of " << n;
      return s[static_cast<size_t>(i)];
    }
    if (tuple.type_index() == kTVMFFIArray || tuple.type_index() == kTVMFFIList) {
      const ffi::SeqBaseObj* seq = ffi::details::SeqOf(tuple.raw());
      n = static_cast<int64_t>(seq->size());
      if (i < 0) i += n;
      TVM_FFI_CHECK(i >= 0 && i < n, IndexError)
          << "tuple_getitem: index out of range for a tuple of " << n;
      return seq->at(i);
    }
    TVM_FFI_THROW(TypeError) << "tuple_getitem: expected a tuple or Shape, got `"
                             << tuple.GetTypeKey() << "`";
  });

  // ---- control ----
  RegisterRuntimeGlobal("vm.builtin.read_if_cond", [](ffi::AnyView cond) -> bool {
    if (std::optional<bool> b = cond.as<bool>()) return *b;
    if (const DLTensor* t = AsDLTensor(cond)) return ScalarTensorIsTrue(t);
    TVM_FFI_THROW(TypeError) << "read_if_cond: expected a bool, int or one-element Tensor, got `"
                             << cond.GetTypeKey() << "`";
  });
  RegisterRuntimeGlobal("vm.builtin.null_value", []() { return ffi::Any(); });
  RegisterRuntimeGlobal("vm.builtin.identity", [](ffi::Any v) { return v; });
  RegisterRuntimePacked("vm.builtin.invoke_closure", [](ffi::PackedArgs args, ffi::Any* rv) {
    TVM_FFI_CHECK(args.size() >= 1, TypeError) << "invoke_closure(func, args...)";
    ffi::Function f = args[0].cast<ffi::Function>();
    TVM_FFI_CHECK(f.defined(), TypeError) << "invoke_closure: the callee is None";
    f.CallPacked(args.data() + 1, args.size() - 1, rv);
  });
}

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
