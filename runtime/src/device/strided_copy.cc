#include "strided_copy.h"

#include <cstring>
#include <vector>

namespace tvm {
namespace runtime {

void CheckCopyCompatible(const DLTensor* from, const DLTensor* to) {
  TVM_FFI_CHECK(from != nullptr && to != nullptr, ValueError) << "copy of a null tensor";
  TVM_FFI_CHECK(from->ndim == to->ndim, ValueError)
      << "copy between tensors of different ndim: " << from->ndim << " vs " << to->ndim;
  for (int32_t i = 0; i < from->ndim; ++i) {
    TVM_FFI_CHECK(from->shape[i] == to->shape[i], ValueError)
        << "copy between tensors of different shape (dim " << i << ": " << from->shape[i]
        << " vs " << to->shape[i] << ")";
  }
  TVM_FFI_CHECK(from->dtype.code == to->dtype.code && from->dtype.bits == to->dtype.bits &&
                    from->dtype.lanes == to->dtype.lanes,
                TypeError)
      << "copy between tensors of different dtype";
}

namespace {
/*! \brief Strides in elements, compact row-major when absent. */
std::vector<int64_t> StridesOf(const DLTensor* t) {
  std::vector<int64_t> s(t->ndim);
  int64_t stride = 1;
  for (int32_t i = t->ndim - 1; i >= 0; --i) {
    s[i] = t->strides != nullptr ? t->strides[i] : stride;
    stride *= t->shape[i];
  }
  return s;
}
}  // namespace

void HostStridedCopy(const DLTensor* from, const DLTensor* to) {
  CheckCopyCompatible(from, to);
  int64_t elem_bits = static_cast<int64_t>(from->dtype.bits) * from->dtype.lanes;
  int64_t numel = ffi::details::ShapeNumel(from->shape, from->ndim);
  if (numel == 0) return;
  const char* src = static_cast<const char*>(from->data) + from->byte_offset;
  char* dst = static_cast<char*>(to->data) + to->byte_offset;
  bool compact = ffi::details::IsContiguousLayout(*from) && ffi::details::IsContiguousLayout(*to);
  if (compact) {
    std::memmove(dst, src, ffi::details::DataBytes(from->dtype, numel));
    return;
  }
  TVM_FFI_CHECK(elem_bits % 8 == 0, ValueError) << "strided copy of sub-byte elements";
  int64_t elem = elem_bits / 8;
  std::vector<int64_t> fs = StridesOf(from), ts = StridesOf(to);
  int32_t nd = from->ndim;
  // Walk the index space with the last dimension as the inner loop.
  std::vector<int64_t> idx(nd, 0);
  int64_t inner = from->shape[nd - 1];
  bool runs = fs[nd - 1] == 1 && ts[nd - 1] == 1;
  for (int64_t done = 0; done < numel; done += inner) {
    int64_t so = 0, to_off = 0;
    for (int32_t d = 0; d < nd - 1; ++d) {
      so += idx[d] * fs[d];
      to_off += idx[d] * ts[d];
    }
    if (runs) {
      std::memcpy(dst + to_off * elem, src + so * elem, inner * elem);
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        std::memcpy(dst + (to_off + i * ts[nd - 1]) * elem, src + (so + i * fs[nd - 1]) * elem, elem);
      }
    }
    for (int32_t d = nd - 2; d >= 0; --d) {
      if (++idx[d] < from->shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace runtime
}  // namespace tvm
