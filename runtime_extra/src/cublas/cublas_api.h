/*
 * The few cuBLAS entry points the contrib functions call, declared here from cublas_api.h 13
 * (values in /work/shared/reference/gpu_stack.md §3, checked against library_types.h) and
 * resolved from libcublas.so.13 by dlopen at first use (runtime_extra/nvlib/nvlib.h): no
 * cuBLAS or CUDA header, nothing NEEDED, libtvm_runtime_extra loads without CUDA.
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_CUBLAS_CUBLAS_API_H_
#define TVM_RUNTIME_EXTRA_SRC_CUBLAS_CUBLAS_API_H_

#include <string>

namespace tvm {
namespace runtime {
namespace cublas {

using cublasStatus_t = int;
using cublasHandle_t = struct cublasContext*;
using cudaStream_t = void*;
constexpr cublasStatus_t kCublasSuccess = 0;

// cublasOperation_t
constexpr int kOpN = 0, kOpT = 1;
// cudaDataType (library_types.h)
constexpr int kR32F = 0, kR64F = 1, kR16F = 2, kR8I = 3, kR32I = 10, kR16BF = 14;
// cublasComputeType_t
constexpr int kCompute32F = 68, kCompute64F = 70, kCompute32I = 72;
constexpr int kGemmDefault = -1;  // cublasGemmAlgo_t

template <typename T>
using Id = T;

#define TVM_CUBLAS_FUNCS(X)                                                                  \
  X(cublasCreate_v2, cublasStatus_t (*)(cublasHandle_t*))                                    \
  X(cublasDestroy_v2, cublasStatus_t (*)(cublasHandle_t))                                    \
  X(cublasSetStream_v2, cublasStatus_t (*)(cublasHandle_t, cudaStream_t))                    \
  X(cublasGetVersion_v2, cublasStatus_t (*)(cublasHandle_t, int*))                           \
  X(cublasGetStatusString, const char* (*)(cublasStatus_t))                                  \
  X(cublasGemmEx,                                                                            \
    cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, \
                       int, const void*, int, int, const void*, void*, int, int, int, int))  \
  X(cublasGemmStridedBatchedEx,                                                              \
    cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, \
                       int, long long, const void*, int, int, long long, const void*, void*,  \
                       int, int, long long, int, int, int))

struct CublasApi {
#define TVM_CUBLAS_MEMBER(name, type) Id<type> name = nullptr;
  TVM_CUBLAS_FUNCS(TVM_CUBLAS_MEMBER)
#undef TVM_CUBLAS_MEMBER
  std::string path;  // the file that was opened
  int version = 0;   // cublasGetVersion_v2(NULL), e.g. 130100
};

/*! \brief "" when cuBLAS and CUDA are usable in this process, else why not (probes once). */
std::string CublasUnavailableReason();

/*!
 * \brief The entry points. \throws LibraryNotAvailableError naming what is missing (the CUDA
 * backend library, a CUDA driver, libcublas.so.13) and what to install.
 */
const CublasApi& RequireCublas(const char* what);

/*! \brief Throws RuntimeError "cuBLAS <call> failed: <status string> (<status>)". */
void CheckCublas(cublasStatus_t s, const char* call);

}  // namespace cublas
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_CUBLAS_CUBLAS_API_H_
