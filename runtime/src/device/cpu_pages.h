/*
 * Page sizes behind the CPU device's memory placement, shared by its allocator
 * (cpu_device_api.cc: page-aligned buffers from 64 KiB, transparent huge pages from 2 MiB
 * to 32 MiB) and the kernels' workspace pool (memory/workspace_pool.cc: half-page offsets
 * below the huge-page size). Internal to libtvm_runtime.
 */
#ifndef TVM_RUNTIME_SRC_DEVICE_CPU_PAGES_H_
#define TVM_RUNTIME_SRC_DEVICE_CPU_PAGES_H_

#include <cstddef>

namespace tvm {
namespace runtime {

/*! \brief A base page. */
constexpr size_t kCpuPage = 4096;
/*! \brief A transparent huge page: CPU buffers from this size up (to kCpuHugePagesUpTo) use them. */
constexpr size_t kCpuHugePage = 2 << 20;
/*! \brief The largest CPU buffer put in huge pages (a last-level cache's size). */
constexpr size_t kCpuHugePagesUpTo = 32 << 20;

}  // namespace runtime
}  // namespace tvm

#endif  // TVM_RUNTIME_SRC_DEVICE_CPU_PAGES_H_
