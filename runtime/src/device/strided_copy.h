/*
 * Host-side copy between two tensors of equal shape and element size with arbitrary strides
 * (shared by every device API whose memory the host can address).
 */
#ifndef TVM_RUNTIME_SRC_DEVICE_STRIDED_COPY_H_
#define TVM_RUNTIME_SRC_DEVICE_STRIDED_COPY_H_

#include <tvm/ffi/container/tensor.h>

namespace tvm {
namespace runtime {

/*! \brief Checks that two tensors describe the same logical data (shape, dtype). */
void CheckCopyCompatible(const DLTensor* from, const DLTensor* to);

/*! \brief Copies element by element (in contiguous runs) honouring both sides' strides. */
void HostStridedCopy(const DLTensor* from, const DLTensor* to);

}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_DEVICE_STRIDED_COPY_H_
