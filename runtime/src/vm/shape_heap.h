/*
 * The shape heap (TVM's design): a per-function int64 tensor whose slots hold symbolic
 * dimensions. match_shape stores dimensions read from inputs into slots and checks others
 * against slots; generated TIR shape functions compute derived dimensions (e.g. (h - 3) / 2 + 1)
 * slot to slot; make_shape builds output shapes from slots and immediates.
 */
#ifndef TVM_RUNTIME_SRC_VM_SHAPE_HEAP_H_
#define TVM_RUNTIME_SRC_VM_SHAPE_HEAP_H_

#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/function.h>

#include <string_view>

namespace tvm {
namespace runtime {
namespace vm {

/*! \brief match_shape codes (apache/tvm's MatchShapeCode). */
enum MatchShapeCode : int64_t {
  kNoOp = 0,               // accept any extent
  kAssertEqualToImm = 1,   // extent == value
  kStoreToHeap = 2,        // heap[value] = extent
  kAssertEqualToLoad = 3,  // extent == heap[value]
};

/*! \brief make_shape codes (apache/tvm's MakeShapeCode). */
enum MakeShapeCode : int64_t {
  kUseImm = 0,     // extent = value
  kLoadShape = 1,  // extent = heap[value]
};

/*! \brief The dimensions of a Tensor or Shape value, read in place (match_shape runs for
 * every input of every call: no copies). `keep` holds the Shape while the view is used. */
struct Dims {
  const int64_t* data = nullptr;
  int64_t size = 0;
  ffi::Shape keep;
};

/*! \brief Dims of `v`; TypeError naming `err_ctx` when it is neither a Tensor nor a Shape. */
Dims DimsOf(const ffi::AnyView& v, std::string_view err_ctx);

/*! \brief match_shape(value, heap or None, ndim, (code, value) * ndim, err_ctx). */
void MatchShapeWithHeap(ffi::PackedArgs args);

/*! \brief make_shape(heap or None, ndim, (code, value) * ndim) -> Shape. */
ffi::Shape MakeShapeWithHeap(ffi::PackedArgs args);

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_VM_SHAPE_HEAP_H_
