/*
 * The few NCCL C entry points the plugin calls, declared here from nccl.h 2.x (values in
 * /work/shared/reference/gpu_stack.md §3) instead of taking a 300 MB wheel for one header,
 * and resolved from libnccl.so.2 by dlopen at init_ccl (runtime_extra/nvlib/nvlib.h).
 * cudaStream_t is an opaque pointer to NCCL, so no CUDA header is needed either.
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_NCCL_NCCL_API_H_
#define TVM_RUNTIME_EXTRA_CCL_NCCL_NCCL_API_H_

#include <cstddef>
#include <string>

namespace tvm {
namespace runtime {
namespace disco_nccl {

// nccl.h's types; enums are C ints in the ABI.
using ncclResult_t = int;
using ncclDataType_t = int;
using ncclRedOp_t = int;
using ncclComm_t = struct ncclComm*;
using cudaStream_t = void*;
constexpr int kNcclUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
struct ncclUniqueId {
  char internal[kNcclUniqueIdBytes];
};
constexpr ncclResult_t ncclSuccess = 0;

#define TVM_NCCL_FUNCS(X)                                                                      \
  X(ncclGetVersion, ncclResult_t (*)(int*))                                                    \
  X(ncclGetUniqueId, ncclResult_t (*)(ncclUniqueId*))                                          \
  X(ncclCommInitRank, ncclResult_t (*)(ncclComm_t*, int, ncclUniqueId, int))                   \
  X(ncclCommSplit, ncclResult_t (*)(ncclComm_t, int, int, ncclComm_t*, void*))                 \
  X(ncclCommDestroy, ncclResult_t (*)(ncclComm_t))                                             \
  X(ncclCommCount, ncclResult_t (*)(ncclComm_t, int*))                                         \
  X(ncclCommUserRank, ncclResult_t (*)(ncclComm_t, int*))                                      \
  X(ncclGetErrorString, const char* (*)(ncclResult_t))                                         \
  X(ncclGetLastError, const char* (*)(ncclComm_t))                                             \
  X(ncclAllReduce, ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,   \
                                    ncclComm_t, cudaStream_t))                                 \
  X(ncclAllGather,                                                                             \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t))    \
  X(ncclBroadcast, ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, int,           \
                                    ncclComm_t, cudaStream_t))                                 \
  X(ncclSend,                                                                                  \
    ncclResult_t (*)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))      \
  X(ncclRecv, ncclResult_t (*)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))  \
  X(ncclGroupStart, ncclResult_t (*)())                                                        \
  X(ncclGroupEnd, ncclResult_t (*)())

// `Id<T> name` declares a member of a function-pointer type written in abstract form.
template <typename T>
using Id = T;

struct NcclApi {
#define TVM_NCCL_MEMBER(name, type) Id<type> name = nullptr;
  TVM_NCCL_FUNCS(TVM_NCCL_MEMBER)
#undef TVM_NCCL_MEMBER
  std::string path;  // the file that was opened
  int version = 0;   // ncclGetVersion, e.g. 23203
};

/*!
 * \brief Why NCCL cannot be used in this process ("" when it can): loads libnccl.so.2 once
 * (thread-safe, cached) and resolves every entry point.
 */
const std::string& NcclUnavailableReason();

/*!
 * \brief The entry points. \throws LibraryNotAvailableError naming the library, where it was
 * looked for and what to pip install, when NCCL cannot be loaded.
 */
const NcclApi& RequireNccl();

/*!
 * \brief Throws RuntimeError "NCCL <call> failed on worker N: <error string> (<last error>)"
 * unless `r` is ncclSuccess.
 */
void CheckNccl(ncclResult_t r, const char* call, ncclComm_t comm);

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_NCCL_NCCL_API_H_
