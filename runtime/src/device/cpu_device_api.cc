/*
 * The CPU device: aligned host memory, host copies (strided too), no streams.
 */
#include <unistd.h>
#include <tvm/runtime/device_api.h>

#include <cstdlib>
#include <new>

#include "../support/registry.h"
#include "strided_copy.h"

namespace tvm {
namespace runtime {
namespace {

constexpr size_t kPage = 4096;
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
    // Buffers of 64 KiB and more start on a page, like the kernels' workspaces
    // (workspace_pool.cc): a kernel streaming one past a workspace it stores into then never
    // meets the "4K aliasing" stall (the two at the same offset modulo 4 KB is the safe
    // case); at most 4 KiB of padding, under 7% of such a buffer.
    if (nbytes >= kPageAlignFrom && alignment < kPage) alignment = kPage;
    void* ptr = nullptr;
    // posix_memalign(0) may return NULL; one byte keeps every allocation a distinct pointer.
    if (posix_memalign(&ptr, alignment, nbytes == 0 ? 1 : nbytes) != 0) {
      TVM_FFI_THROW(MemoryError) << "cannot allocate " << nbytes << " bytes on cpu";
    }
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
