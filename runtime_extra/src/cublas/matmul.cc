/*
 * TVM's cuBLAS contrib functions (shared/reference/disco.md §4):
 *   tvm.contrib.cublas.matmul(A, B, C, transa, transb[, alpha=1, beta=0])
 *       C[m, n] = alpha * op(A)[m, k] @ op(B)[k, n] + beta * C
 *   tvm.contrib.cublas.batch_matmul(A, B, C, transa, transb[, alpha, beta])
 *       the same per batch; A or B may have batch 1 (broadcast, stride 0)
 * (or with C last, as destination-passing calls from Relax give it),
 * Row-major tensors on one CUDA device; op(X) is X^T when its flag is set. A 2-D operand
 * whose strides are the transpose of compact (a "reversed-stride" view) is taken as a
 * transpose in place, as TVM does. Everything goes through cublasGemmEx /
 * cublasGemmStridedBatchedEx: float32, float16, bfloat16 (accumulated in float32, output of
 * the same type or float32), float64, and int8 x int8 -> int32.
 *
 * Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets (B, A) with m and n swapped
 * and each operand's op unchanged; the leading dimensions are the row-major row lengths.
 * A handle per device and thread (cuBLAS handles are not thread-safe), bound at each call to
 * the env stream of the device (TVMFFIEnvGetStream; null is the legacy default stream).
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "../registry.h"
#include "cublas_api.h"

namespace tvm {
namespace runtime {
namespace cublas {
namespace {

/*! \brief A matrix operand: data, rows/cols of its row-major storage, batch, transposition. */
struct Operand {
  const DLTensor* t;
  int64_t batch = 1, rows = 0, cols = 0;
  bool trans = false;  // op(X) = X^T
  int64_t batch_stride() const { return batch == 1 ? 0 : rows * cols; }
  void* data() const { return static_cast<char*>(t->data) + t->byte_offset; }
};

bool Compact(const DLTensor* t) {
  if (t->strides == nullptr) return true;
  int64_t expect = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] != 1 && t->strides[i] != expect) return false;
    expect *= t->shape[i];
  }
  return true;
}

/*! \brief Reads `t` as a (batch of) matrix; a transposed-compact view flips `trans`. */
Operand AsOperand(const DLTensor* t, bool trans, bool batched, const char* fn, const char* arg) {
  int want = batched ? 3 : 2;
  if (t->ndim != want) {
    TVM_FFI_THROW(ValueError) << fn << ": `" << arg << "` must be " << want << "-D, got "
                              << t->ndim << "-D";
  }
  if (t->device.device_type != kDLCUDA) {
    TVM_FFI_THROW(TypeError) << fn << ": `" << arg << "` must be on a CUDA device, got device "
                             << "type " << static_cast<int>(t->device.device_type);
  }
  Operand o{t};
  int r = t->ndim - 2, c = t->ndim - 1;
  o.batch = batched ? t->shape[0] : 1;
  o.trans = trans;
  if (Compact(t)) {
    o.rows = t->shape[r];
    o.cols = t->shape[c];
    return o;
  }
  bool batch_ok = !batched || t->shape[0] == 1 || t->strides[0] == t->shape[r] * t->shape[c];
  if (batch_ok && t->strides[c] == t->shape[r] && t->strides[r] == 1) {
    // Column-major storage of X is row-major storage of X^T.
    o.rows = t->shape[c];
    o.cols = t->shape[r];
    o.trans = !trans;
    return o;
  }
  TVM_FFI_THROW(ValueError) << fn << ": `" << arg
                            << "` must be compact (row-major) or a transposed compact view";
}

// op(X)'s shape
int64_t OpRows(const Operand& o) { return o.trans ? o.cols : o.rows; }
int64_t OpCols(const Operand& o) { return o.trans ? o.rows : o.cols; }

bool Is(DLDataType t, int code, int bits) { return t.code == code && t.bits == bits && t.lanes == 1; }

struct GemmTypes {
  int ab, c, compute;
};

GemmTypes Types(DLDataType a, DLDataType b, DLDataType c, const char* fn) {
  if (a.code == b.code && a.bits == b.bits && a.lanes == b.lanes) {
    if (Is(a, kDLFloat, 32) && Is(c, kDLFloat, 32)) return {kR32F, kR32F, kCompute32F};
    if (Is(a, kDLFloat, 64) && Is(c, kDLFloat, 64)) return {kR64F, kR64F, kCompute64F};
    if (Is(a, kDLFloat, 16) && Is(c, kDLFloat, 16)) return {kR16F, kR16F, kCompute32F};
    if (Is(a, kDLFloat, 16) && Is(c, kDLFloat, 32)) return {kR16F, kR32F, kCompute32F};
    if (Is(a, kDLBfloat, 16) && Is(c, kDLBfloat, 16)) return {kR16BF, kR16BF, kCompute32F};
    if (Is(a, kDLBfloat, 16) && Is(c, kDLFloat, 32)) return {kR16BF, kR32F, kCompute32F};
    if (Is(a, kDLInt, 8) && Is(c, kDLInt, 32)) return {kR8I, kR32I, kCompute32I};
  }
  TVM_FFI_THROW(TypeError) << fn << ": unsupported dtypes (A, B -> C); cuBLAS takes float32 -> "
                              "float32, float64 -> float64, float16 -> float16/float32, "
                              "bfloat16 -> bfloat16/float32, int8 -> int32";
}

/*! \brief This thread's handle for `device_id`, with the device current and the env stream. */
cublasHandle_t Handle(const CublasApi& api, int device_id) {
  static const ffi::Function set_device = ffi::Function::GetGlobalRequired("runtime.cuda.SetDevice");
  set_device(int64_t{device_id});  // cuBLAS works on the current device's primary context
  thread_local std::unordered_map<int, cublasHandle_t> handles;  // never destroyed: see docs
  cublasHandle_t& h = handles[device_id];
  if (h == nullptr) CheckCublas(api.cublasCreate_v2(&h), "cublasCreate");
  CheckCublas(api.cublasSetStream_v2(h, TVMFFIEnvGetStream(kDLCUDA, device_id)),
              "cublasSetStream");
  return h;
}

void Gemm(ffi::PackedArgs args, bool batched) {
  const char* fn = batched ? "tvm.contrib.cublas.batch_matmul" : "tvm.contrib.cublas.matmul";
  if (args.size() != 5 && args.size() != 7) {
    TVM_FFI_THROW(TypeError) << fn << "(A, B, C, transa, transb[, alpha, beta]) takes 5 or 7 "
                                "arguments, got "
                             << args.size();
  }
  // TVM's order is (A, B, C, transa, transb, ...); a destination-passing caller (Relax
  // call_dps_packed, relax.ext.cublas) appends C last: (A, B, transa, transb, ..., C). Flags
  // are never tensors, so argument 2 tells which.
  bool dps = args[2].type_index() < ffi::TypeIndex::kTVMFFIStaticObjectBegin &&
             args[2].type_index() != ffi::TypeIndex::kTVMFFIDLTensorPtr;
  int last = args.size() - 1;
  DLTensor* a = args[0].cast<DLTensor*>();
  DLTensor* b = args[1].cast<DLTensor*>();
  DLTensor* c = args[dps ? last : 2].cast<DLTensor*>();
  int flags = dps ? 2 : 3;  // transa, transb[, alpha, beta]
  bool transa = args[flags].cast<bool>(), transb = args[flags + 1].cast<bool>();
  double alpha = args.size() == 7 ? args[flags + 2].cast<double>() : 1.0;
  double beta = args.size() == 7 ? args[flags + 3].cast<double>() : 0.0;
  const CublasApi& api = RequireCublas(fn);
  Operand A = AsOperand(a, transa, batched, fn, "A");
  Operand B = AsOperand(b, transb, batched, fn, "B");
  Operand C = AsOperand(c, false, batched, fn, "C");
  if (C.trans) TVM_FFI_THROW(ValueError) << fn << ": `C` must be compact (row-major)";
  if (a->device.device_id != c->device.device_id || b->device.device_id != c->device.device_id) {
    TVM_FFI_THROW(ValueError) << fn << ": A, B and C must be on the same CUDA device";
  }
  int64_t m = OpRows(A), k = OpCols(A), n = OpCols(B);
  if (OpRows(B) != k || C.rows != m || C.cols != n) {
    TVM_FFI_THROW(ValueError) << fn << ": shapes do not match: op(A) is " << m << "x" << k
                              << ", op(B) " << OpRows(B) << "x" << n << ", C " << C.rows << "x"
                              << C.cols;
  }
  if (batched && ((A.batch != C.batch && A.batch != 1) || (B.batch != C.batch && B.batch != 1))) {
    TVM_FFI_THROW(ValueError) << fn << ": batch sizes A " << A.batch << ", B " << B.batch
                              << ", C " << C.batch << " (A and B: C's or 1)";
  }
  GemmTypes ty = Types(a->dtype, b->dtype, c->dtype, fn);
  if (ty.ab == kR8I && (A.cols % 4 != 0 || B.cols % 4 != 0 || C.cols % 4 != 0)) {
    TVM_FFI_THROW(ValueError) << fn << ": int8 needs every operand's row length to be a multiple "
                                 "of 4 (cuBLAS's alignment rule for CUDA_R_8I)";
  }
  if (m == 0 || n == 0 || C.batch == 0) return;
  // Scalars in the compute type (cuBLAS reads them from host memory).
  float f_alpha = static_cast<float>(alpha), f_beta = static_cast<float>(beta);
  int32_t i_alpha = static_cast<int32_t>(alpha), i_beta = static_cast<int32_t>(beta);
  const void* pa = ty.compute == kCompute64F ? static_cast<const void*>(&alpha)
                   : ty.compute == kCompute32I ? static_cast<const void*>(&i_alpha)
                                               : static_cast<const void*>(&f_alpha);
  const void* pb = ty.compute == kCompute64F ? static_cast<const void*>(&beta)
                   : ty.compute == kCompute32I ? static_cast<const void*>(&i_beta)
                                               : static_cast<const void*>(&f_beta);
  cublasHandle_t h = Handle(api, c->device.device_id);
  int op_b = B.trans ? kOpT : kOpN, op_a = A.trans ? kOpT : kOpN;
  auto i32 = [](int64_t v) { return static_cast<int>(v); };
  if (!batched) {
    CheckCublas(api.cublasGemmEx(h, op_b, op_a, i32(n), i32(m), i32(k), pa, B.data(), ty.ab,
                                 i32(B.cols), A.data(), ty.ab, i32(A.cols), pb, C.data(), ty.c,
                                 i32(n), ty.compute, kGemmDefault),
                "cublasGemmEx");
    return;
  }
  CheckCublas(api.cublasGemmStridedBatchedEx(
                  h, op_b, op_a, i32(n), i32(m), i32(k), pa, B.data(), ty.ab, i32(B.cols),
                  B.batch_stride(), A.data(), ty.ab, i32(A.cols), A.batch_stride(), pb, C.data(),
                  ty.c, i32(n), m * n, i32(C.batch), ty.compute, kGemmDefault),
              "cublasGemmStridedBatchedEx");
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  using extra::RegisterGlobal;
  using extra::RegisterPacked;
  RegisterPacked("tvm.contrib.cublas.matmul",
                 [](ffi::PackedArgs args, ffi::Any*) { Gemm(args, false); });
  RegisterPacked("tvm.contrib.cublas.batch_matmul",
                 [](ffi::PackedArgs args, ffi::Any*) { Gemm(args, true); });
  // For tvm.support.libinfo(): "" when cuBLAS can run in this process, else why not.
  RegisterGlobal("tvm.contrib.cublas.probe", []() { return ffi::String(CublasUnavailableReason()); });
}

}  // namespace cublas
}  // namespace runtime
}  // namespace tvm
