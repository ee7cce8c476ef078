/*
 * The packed-call convention of a CUDA kernel (TVM's): the kernel arguments, then one int64
 * per launch parameter tag.
 *
 *   tags          blockIdx.{x,y,z} -> grid, threadIdx.{x,y,z} -> block, clusterCtaIdx.{x,y,z}
 *                 -> cluster dims; a value <= 0 means 1. A trailing
 *                 `tir.use_dyn_shared_memory` (or `tirx.`) takes one more int64: the dynamic
 *                 shared memory in bytes. `tir(x).use_programtic_dependent_launch` and
 *                 `tir(x).use_cooperative_launch` are flags and take no argument.
 *   arguments     handles (code 3, 64 bits): an opaque pointer, None (NULL), or a DLTensor /
 *                 Tensor on a CUDA device (its data + byte_offset); ints/uints of 8-64 bits
 *                 from an int or bool (range-checked: int32 from int64 etc.); floats of 32/64
 *                 bits from a float or int (float32 narrowed from float64).
 *
 * Errors: ValueError for a signature or tag that cannot be launched (at GetFunction time),
 * TypeError naming the kernel for a wrong argument count or type, ValueError for an
 * out-of-range value.
 */
#ifndef TVM_RUNTIME_CUDA_SRC_LAUNCH_H_
#define TVM_RUNTIME_CUDA_SRC_LAUNCH_H_

#include <tvm/ffi/function.h>

#include <string>
#include <vector>

#include "blob.h"

namespace tvm {
namespace runtime {
namespace cuda {

/*! \brief What the launch tags of one kernel ask for. */
struct LaunchSpec {
  /*! \brief For each extent argument: 0-2 grid x/y/z, 3-5 block x/y/z, 6-8 cluster x/y/z. */
  std::vector<int> dims;
  bool dyn_shared_memory = false;
  bool programmatic_dependent_launch = false;
  bool cooperative_launch = false;
  bool has_cluster = false;
  /*! \brief Extra int64 arguments after the kernel's own: dims.size() + dyn_shared_memory. */
  size_t num_extents() const { return dims.size() + (dyn_shared_memory ? 1 : 0); }
};

/*! \brief Grid/block/cluster sizes and dynamic shared memory of one call. */
struct LaunchDims {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned cluster[3] = {1, 1, 1};
  size_t dyn_shared_bytes = 0;
};

/*! \brief Parses the tags of kernel `kernel`; ValueError for unknown or misplaced tags. */
LaunchSpec ParseLaunchTags(const std::string& kernel, const std::vector<std::string>& tags);

/*!
 * \brief Kernel arguments laid out for cuLaunchKernelEx: one 8-byte slot per argument and
 * the array of pointers to them. Not copyable (params() points into slots).
 */
class PackedKernelArgs {
 public:
  PackedKernelArgs() = default;
  PackedKernelArgs(const PackedKernelArgs&) = delete;
  PackedKernelArgs& operator=(const PackedKernelArgs&) = delete;
  /*! \brief Packs args[0 .. info.arg_types.size()) and reads the launch extents after them. */
  void Pack(const FunctionInfo& info, const LaunchSpec& spec, ffi::PackedArgs args);
  void** params() { return pointers_.empty() ? nullptr : pointers_.data(); }
  const LaunchDims& dims() const { return dims_; }

 private:
  std::vector<uint64_t> slots_;
  std::vector<void*> pointers_;
  LaunchDims dims_;
};

/*! \brief ValueError unless every argument type of `info` can be packed (see file comment). */
void CheckSignature(const FunctionInfo& info);

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_CUDA_SRC_LAUNCH_H_
