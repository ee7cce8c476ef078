/*
 * The serialised CUDA module (`ffi.Module.load_from_bytes.cuda`), apache-tvm's format byte for
 * byte (docs/cuda.md). Little-endian; str = u64 length + bytes:
 *
 *   str fmt                        "ptx" | "cubin" | "fatbin" | "cuda"
 *   u64 n, n x (str key, FunctionInfo)
 *     FunctionInfo = str name,
 *                    u64 k, k x {u8 code, u8 bits, u16 lanes}   argument dtypes
 *                    u64 m, m x str                             launch parameter tags
 *                    u64 k, k x i32                             arg extra tags (0 none, 1 TensorMap)
 *   str code                       the image (PTX text, cubin/fatbin bytes) or CUDA C source
 *
 * Parsing never trusts a length: every count is checked against the bytes left, so malformed
 * input raises ValueError and never over-allocates or reads out of bounds.
 */
#ifndef TVM_RUNTIME_CUDA_SRC_BLOB_H_
#define TVM_RUNTIME_CUDA_SRC_BLOB_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tvm {
namespace runtime {
namespace cuda {

/*! \brief One kernel's signature and launch convention. */
struct FunctionInfo {
  std::string name;
  std::vector<DLDataType> arg_types;
  std::vector<std::string> launch_param_tags;
  std::vector<int32_t> arg_extra_tags;
};

/*! \brief A parsed blob; `functions` keeps the serialised order so writing reproduces it. */
struct CUDABlob {
  std::string fmt;
  std::vector<std::pair<std::string, FunctionInfo>> functions;
  std::string code;
};

/*! \brief Parses a blob; ValueError ("corrupt CUDA module: ...") on any malformation. */
CUDABlob ParseCUDABlob(const char* data, size_t size);

/*! \brief The blob's bytes (ParseCUDABlob(WriteCUDABlob(b)) == b). */
std::string WriteCUDABlob(const CUDABlob& blob);

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_CUDA_SRC_BLOB_H_
