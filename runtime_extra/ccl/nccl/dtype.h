/*
 * DLPack dtypes and Disco's reduce kinds as NCCL's enums (nccl.h 2.x values). Pure host
 * logic: `runtime.disco.nccl._nccl_dtype` / `_nccl_op` expose it to the tests.
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_NCCL_DTYPE_H_
#define TVM_RUNTIME_EXTRA_CCL_NCCL_DTYPE_H_

#include <dlpack/dlpack.h>
#include <tvm/ffi/error.h>

#include <cstdint>

namespace tvm {
namespace runtime {
namespace disco_nccl {

// ncclDataType_t
enum : int {
  kNcclInt8 = 0,
  kNcclUint8 = 1,
  kNcclInt32 = 2,
  kNcclUint32 = 3,
  kNcclInt64 = 4,
  kNcclUint64 = 5,
  kNcclFloat16 = 6,
  kNcclFloat32 = 7,
  kNcclFloat64 = 8,
  kNcclBfloat16 = 9,
};

/*!
 * \brief NCCL's type for reducing `t`, or -1 when NCCL cannot reduce it (16-bit integers,
 * bool, float8 (TVM refuses it too), vectors). Moving data needs no type: those ops send bytes.
 */
inline int NcclReduceType(DLDataType t) {
  if (t.lanes != 1) return -1;
  switch (t.code) {
    case kDLInt:
      return t.bits == 8 ? kNcclInt8 : t.bits == 32 ? kNcclInt32 : t.bits == 64 ? kNcclInt64 : -1;
    case kDLUInt:
      return t.bits == 8 ? kNcclUint8 : t.bits == 32 ? kNcclUint32 : t.bits == 64 ? kNcclUint64
                                                                                   : -1;
    case kDLFloat:
      return t.bits == 16 ? kNcclFloat16 : t.bits == 32 ? kNcclFloat32 : t.bits == 64 ? kNcclFloat64
                                                                                       : -1;
    case kDLBfloat:
      return t.bits == 16 ? kNcclBfloat16 : -1;
    default:
      return -1;
  }
}

/*!
 * \brief Disco's ReduceKind (sum 0, prod 1, min 2, max 3, avg 4) as ncclRedOp_t (Sum 0,
 * Prod 1, Max 2, Min 3, Avg 4: min and max are swapped). \throws ValueError outside 0..4.
 */
inline int NcclReduceOp(int64_t kind) {
  static const int kOps[] = {0, 1, 3, 2, 4};
  if (kind < 0 || kind > 4) {
    TVM_FFI_THROW(ValueError) << "nccl allreduce: reduce kind must be 0..4 (sum, prod, min, "
                                 "max, avg), got "
                              << kind;
  }
  return kOps[kind];
}

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_NCCL_DTYPE_H_
