/*
 * The CPU device: aligned host memory, host copies (strided too), no streams.
 */
#include <sys/mman.h>
#include <unistd.h>
#include <tvm/runtime/device_api.h>

#include <cstdlib>
#include <new>

#include "../support/registry.h"
#include "cpu_pages.h"
#include "strided_copy.h"

namespace tvm {
namespace runtime {
namespace {

constexpr size_t kPageAlignFrom = 64 << 10;

class CPUDeviceAPI final : public DeviceAPI {
 public:
  void SetDevice(DLDevice) final {}
  void GetAttr(DLDevice, DeviceAttrKind kind, Any* rv) final {
    switch (kind) {
      case kExist:
        *rv = int64_t{1};
        break;
      case kDeviceName:
        *rv = ffi::String("cpu");
        break;
      case kTotalGlobalMemory:
        *rv = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
        break;
      case kAvailableGlobalMemory:
        *rv = static_cast<int64_t>(sysconf(_SC_AVPHYS_PAGES)) * sysconf(_SC_PAGESIZE);
        break;
      case kMultiProcessorCount:
        *rv = static_cast<int64_t>(sysconf(_SC_NPROCESSORS_ONLN));
        break;
      default:
        break;  // None: not a CPU property
    }
  }
  void* AllocDataSpace(DLDevice, size_t nbytes, size_t alignment, DLDataType) final {
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    TVM_FFI_CHECK((alignment & (alignment - 1)) == 0, ValueError)
        << "alignment " << alignment << " is not a power of two";
    // Buffers of 64 KiB and more start on a page, and the kernels' workspaces half a page
    // in (workspace_pool.cc): a kernel streaming one past a workspace it stores into then
    // never meets the "4K aliasing" stall (a workspace a few vectors ahead of an operand
    // modulo 4 KB); at most 4 KiB of padding, under 7% of such a buffer.
    if (nbytes >= kPageAlignFrom && alignment < kCpuPage) alignment = kCpuPage;
    // Buffers from 2 MiB up to the size of a last-level cache (weights, activations that
    // stay in cache between uses) are asked to live in transparent huge pages: a kernel
    // reading a 4 MiB weight otherwise needs 1024 TLB entries, and once other work has
    // evicted them a page walk every 4 KiB (1x1024x1024 with B a constant: 0.88-0.93x
    // numpy's time with them, 0.97-1.05x without). Larger ones stream from DRAM, where the
    // walks overlap the misses, and their first touch costs the most: on a VM whose host
    // backs guest memory 2 MiB at a time fresh huge pages fault in at ~440 MB/s (VGG-19's
    // 411 MB weight: 1.8 s). Where THP is off, madvise fails and nothing changes.
    size_t size = nbytes == 0 ? 1 : nbytes;  // posix_memalign(0) may return NULL
    const bool huge = nbytes >= kCpuHugePage && nbytes <= kCpuHugePagesUpTo;
    if (huge) {
      if (alignment < kCpuHugePage) alignment = kCpuHugePage;
      size = (nbytes + kCpuHugePage - 1) / kCpuHugePage * kCpuHugePage;
    }
    void* ptr = nullptr;
    if (posix_memalign(&ptr, alignment, size) != 0) {
      TVM_FFI_THROW(MemoryError) << "cannot allocate " << nbytes << " bytes on cpu";
    }
#ifdef MADV_HUGEPAGE
    if (huge) (void)madvise(ptr, size, MADV_HUGEPAGE);
#endif
    return ptr;
  }
  void FreeDataSpace(DLDevice, void* ptr) final { std::free(ptr); }
  void CopyDataFromTo(const DLTensor* from, const DLTensor* to, void*) final {
    HostStridedCopy(from, to);
  }
  void StreamSync(DLDevice, void*) final {}
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  static CPUDeviceAPI* api = new CPUDeviceAPI();  // lives for the process
  RegisterRuntimeGlobal("device_api.cpu", []() { return static_cast<void*>(api); });
  // CUDA host memory is host memory: the CPU backend serves it when no CUDA backend does.
}

}  // namespace runtime
}  // namespace tvm
