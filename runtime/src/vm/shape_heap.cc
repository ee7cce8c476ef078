/*
 * Shape-heap builtins. Bytecode is untrusted (docs/vm.md), so every slot index, code and count
 * is checked here: a bad program gets a typed error, never an out-of-bounds heap access.
 */
#include "shape_heap.h"

#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/runtime/tensor.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../support/registry.h"
#include "interpreter.h"
#include "storage.h"

namespace tvm {
namespace runtime {
namespace vm {
namespace {

// Heaps hold a handful of dimensions per function; the cap only stops absurd requests.
constexpr int64_t kMaxHeapSlots = int64_t{1} << 20;
constexpr int64_t kMaxDims = 64;

/*! \brief A view of the heap argument: data and slot count (none when the heap is None). */
struct Heap {
  int64_t* data = nullptr;
  int64_t size = 0;

  int64_t& At(int64_t slot, std::string_view who) const {
    TVM_FFI_CHECK(data != nullptr, ValueError) << who << ": slot " << slot
                                               << " used but the function has no shape heap";
    TVM_FFI_CHECK(slot >= 0 && slot < size, IndexError)
        << who << ": shape heap slot " << slot << " out of range [0, " << size << ")";
    return data[slot];
  }
};

Heap AsHeap(const ffi::AnyView& v, std::string_view who) {
  Heap h;
  if (v.is_none()) return h;
  std::optional<DLTensor*> t = v.as<DLTensor*>();
  TVM_FFI_CHECK(t.has_value(), TypeError)
      << who << ": the shape heap must be a Tensor or None, got `" << v.GetTypeKey() << "`";
  const DLTensor* d = *t;
  TVM_FFI_CHECK(d->device.device_type == kDLCPU && d->ndim == 1 && d->dtype.code == kDLInt &&
                    d->dtype.bits == 64 && d->dtype.lanes == 1 &&
                    (d->strides == nullptr || d->strides[0] == 1),
                TypeError)
      << who << ": the shape heap must be a compact 1-d int64 host tensor";
  h.data = reinterpret_cast<int64_t*>(static_cast<char*>(d->data) + d->byte_offset);
  h.size = d->shape[0];
  return h;
}

int64_t IntArg(const ffi::AnyView& v, std::string_view who, const char* what) {
  std::optional<int64_t> i = v.as<int64_t>();
  TVM_FFI_CHECK(i.has_value(), TypeError)
      << who << ": " << what << " must be an int, got `" << v.GetTypeKey() << "`";
  return *i;
}

/*! \brief ndim from args[pos], checked against the number of (code, value) pairs present. */
int64_t PairCount(ffi::PackedArgs args, int pos, int trailing, std::string_view who) {
  int64_t ndim = IntArg(args[pos], who, "ndim");
  TVM_FFI_CHECK(ndim >= 0 && ndim <= kMaxDims && args.size() == pos + 1 + 2 * ndim + trailing,
                TypeError)
      << who << ": ndim " << ndim << " does not match the " << args.size() << " arguments";
  return ndim;
}

std::string Text(const std::vector<std::string>& dims) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? ", " : "") << dims[i];
  os << "]";
  return os.str();
}

}  // namespace

Dims DimsOf(const ffi::AnyView& v, std::string_view err_ctx) {
  Dims d;
  if (std::optional<DLTensor*> t = v.as<DLTensor*>()) {
    d.data = (*t)->shape;
    d.size = (*t)->ndim;
    return d;
  }
  if (v.type_index() == kTVMFFIShape) {
    d.keep = v.cast<ffi::Shape>();
    d.data = d.keep.data();
    d.size = static_cast<int64_t>(d.keep.size());
    return d;
  }
  TVM_FFI_THROW(TypeError) << err_ctx << ": expected a Tensor or Shape, got `" << v.GetTypeKey()
                           << "`";
}

void MatchShapeWithHeap(ffi::PackedArgs args) {
  TVM_FFI_CHECK(args.size() >= 4, TypeError)
      << "match_shape(value, heap, ndim, (code, value)..., err_ctx)";
  std::optional<ffi::String> ctx = args[args.size() - 1].as<ffi::String>();
  TVM_FFI_CHECK(ctx.has_value(), TypeError) << "match_shape: the last argument must be err_ctx";
  // This runs for every input of every call: nothing below allocates unless it fails.
  const std::string_view err_ctx = ctx->view();
  Heap heap = AsHeap(args[1], err_ctx);
  int64_t ndim = PairCount(args, 2, 1, err_ctx);
  Dims dims = DimsOf(args[0], err_ctx);
  auto code = [&](int64_t i) { return IntArg(args[3 + 2 * i], err_ctx, "match_shape code"); };
  auto value = [&](int64_t i) { return IntArg(args[4 + 2 * i], err_ctx, "match_shape value"); };
  // Validate every pair first so a malformed program fails the same way whether or not the
  // value's shape happens to match.
  for (int64_t i = 0; i < ndim; ++i) {
    int64_t c = code(i);
    TVM_FFI_CHECK(c >= kNoOp && c <= kAssertEqualToLoad, ValueError)
        << err_ctx << ": unknown match_shape code " << c;
    if (c == kStoreToHeap || c == kAssertEqualToLoad) heap.At(value(i), err_ctx);
  }
  bool ok = dims.size == ndim;
  // In order, so a dimension stored by an earlier position is checked by a later one; after a
  // mismatch nothing more is stored.
  for (int64_t i = 0; ok && i < ndim; ++i) {
    int64_t c = code(i), v = value(i);
    if (c == kStoreToHeap) heap.At(v, err_ctx) = dims.data[i];
    if (c == kAssertEqualToImm) ok = dims.data[i] == v;
    if (c == kAssertEqualToLoad) ok = dims.data[i] == heap.At(v, err_ctx);
  }
  if (!ok) {
    std::vector<std::string> want(ndim, "?"), got;
    for (int64_t i = 0; i < ndim; ++i) {
      if (code(i) == kAssertEqualToImm) want[i] = std::to_string(value(i));
      if (code(i) == kAssertEqualToLoad) want[i] = std::to_string(heap.At(value(i), err_ctx));
    }
    for (int64_t i = 0; i < dims.size; ++i) got.push_back(std::to_string(dims.data[i]));
    TVM_FFI_THROW(ValueError) << err_ctx << ": expected shape " << Text(want) << ", got "
                              << Text(got);
  }
}

ffi::Shape MakeShapeWithHeap(ffi::PackedArgs args) {
  const std::string_view who = "make_shape";
  TVM_FFI_CHECK(args.size() >= 2, TypeError) << "make_shape(heap, ndim, (code, value)...)";
  Heap heap = AsHeap(args[0], who);
  int64_t ndim = PairCount(args, 1, 0, who);
  std::vector<int64_t> dims(ndim);
  for (int64_t i = 0; i < ndim; ++i) {
    int64_t code = IntArg(args[2 + 2 * i], who, "code");
    int64_t value = IntArg(args[3 + 2 * i], who, "value");
    TVM_FFI_CHECK(code == kUseImm || code == kLoadShape, ValueError)
        << who << ": unknown make_shape code " << code;
    dims[i] = code == kUseImm ? value : heap.At(value, who);
  }
  return ffi::Shape(dims);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  // alloc_shape_heap(vm, size): a zeroed int64 host tensor of `size` slots.
  RegisterRuntimeGlobal("vm.builtin.alloc_shape_heap", [](const ffi::Module& vm_mod,
                                                          int64_t size) {
    TVM_FFI_CHECK(size >= 0 && size <= kMaxHeapSlots, ValueError)
        << "alloc_shape_heap: size " << size << " out of range [0, " << kMaxHeapSlots << "]";
    ffi::Tensor heap = AllocTensor(AsVirtualMachine(vm_mod)->allocator(-1), {size},
                                   DLDataType{kDLInt, 64, 1});
    std::fill_n(static_cast<int64_t*>(heap.data_ptr()), size, int64_t{0});
    return heap;
  });
}

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
