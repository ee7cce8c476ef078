/*
 * Kernel workspaces: TVMBackendAllocWorkspace / TVMBackendFreeWorkspace.
 *
 * Each thread has its own pool per device, so no locking on the hot path. Kernels allocate
 * and free in LIFO order and repeat the same pattern every run, so the pool keeps freed
 * blocks (rounded to 4 KiB pages) and hands the best-fitting one back next time.
 */
#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/device_api.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "../device/cpu_pages.h"

namespace tvm {
namespace runtime {
namespace {

// CPU workspaces start half a page past a page boundary. A kernel that streams operands
// while it loads and stores a workspace (a row-vector product's partial rows, a GEMM's packed
// panel) runs slowest when the workspace sits a few vectors ahead of the operands modulo
// 4 KiB ("4K aliasing": loads wait on stores that only look like they overlap; 1x1024x1024
// took 84-88 us instead of 57 at one offset in 16) and measurably slower at the same
// offset (the streams compete for the same L1 sets: 1x1024x1024's partial rows 2 us of
// 48). The operands this runtime allocates from 64 KiB up start on a page, numpy's large
// arrays 16 bytes past one: half a page is as far from both as an offset can be.
constexpr size_t kCpuWorkspaceOffset = kCpuPage / 2;

class WorkspacePool {
 public:
  explicit WorkspacePool(DLDevice device) : device_(device), api_(DeviceAPI::Get(device)) {}
  ~WorkspacePool() {
    for (auto& [size, blocks] : free_) {
      for (void* p : blocks) api_->FreeDataSpace(device_, p);
    }
    for (const Block& b : in_use_) api_->FreeDataSpace(device_, b.base);
  }

  void* Alloc(size_t nbytes, DLDataType hint) {
    // Rounding up (and the page added below) must not wrap around to a small block.
    TVM_FFI_CHECK(nbytes <= std::numeric_limits<size_t>::max() / 2, MemoryError)
        << "TVMBackendAllocWorkspace: cannot allocate " << nbytes << " bytes";
    size_t size = std::max<size_t>(kCpuPage, (nbytes + kCpuPage - 1) / kCpuPage * kCpuPage);
    void* base = nullptr;
    auto it = free_.lower_bound(size);  // smallest cached block that fits
    if (it != free_.end()) {
      base = it->second.back();
      size = it->first;
      it->second.pop_back();
      if (it->second.empty()) free_.erase(it);
    } else if (Offset(size)) {
      base = api_->AllocDataSpace(device_, size + kCpuPage, kCpuPage, hint);
    } else {
      size_t alignment = device_.device_type == kDLCPU ? kCpuPage : kAllocAlignment;
      base = api_->AllocDataSpace(device_, size, alignment, hint);
    }
    void* p = Offset(size) ? static_cast<char*>(base) + kCpuWorkspaceOffset : base;
    in_use_.push_back(Block{p, base, size});
    return p;
  }

  void Free(void* p) {
    // LIFO is the common case: search from the most recent allocation.
    for (auto it = in_use_.rbegin(); it != in_use_.rend(); ++it) {
      if (it->ptr == p) {
        free_[it->size].push_back(it->base);
        in_use_.erase(std::next(it).base());
        return;
      }
    }
    TVM_FFI_THROW(ValueError) << "TVMBackendFreeWorkspace: pointer " << p
                              << " was not allocated by this thread's workspace pool";
  }

 private:
  // Whether a block of `size` (page-rounded) bytes starts kCpuWorkspaceOffset into a page
  // one larger. Not from kCpuHugePage: the CPU device puts those in huge pages, and the offset
  // would spill into one more (cpu_device_api.cc).
  bool Offset(size_t size) const {
    return device_.device_type == kDLCPU && size + kCpuPage < kCpuHugePage;
  }

  DLDevice device_;
  DeviceAPI* api_;
  struct Block {
    void* ptr;   // what the kernel got
    void* base;  // what the device API allocated
    size_t size;
  };
  std::map<size_t, std::vector<void*>> free_;  // cached blocks' bases by size
  std::vector<Block> in_use_;
};

WorkspacePool& PoolFor(int device_type, int device_id) {
  thread_local std::map<std::pair<int, int>, std::unique_ptr<WorkspacePool>> pools;
  auto key = std::make_pair(device_type, device_id);
  auto it = pools.find(key);
  if (it == pools.end()) {
    DLDevice dev{static_cast<DLDeviceType>(device_type), device_id};
    it = pools.emplace(key, std::make_unique<WorkspacePool>(dev)).first;
  }
  return *it->second;
}

}  // namespace
}  // namespace runtime
}  // namespace tvm

extern "C" {

void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint) {
  try {
    DLDataType hint{static_cast<uint8_t>(dtype_code_hint), static_cast<uint8_t>(dtype_bits_hint), 1};
    return tvm::runtime::PoolFor(device_type, device_id).Alloc(nbytes, hint);
  } catch (const tvm::ffi::Error& e) {
    tvm::ffi::details::SetRaisedFromError(e);
  } catch (const std::exception& e) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", e.what());
  }
  return nullptr;
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  TVM_FFI_SAFE_CALL_BEGIN();
  tvm::runtime::PoolFor(device_type, device_id).Free(ptr);
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
