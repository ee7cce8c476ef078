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
#include <map>
#include <memory>
#include <vector>

namespace tvm {
namespace runtime {
namespace {

constexpr size_t kPageSize = 4096;

class WorkspacePool {
 public:
  explicit WorkspacePool(DLDevice device) : device_(device), api_(DeviceAPI::Get(device)) {}
  ~WorkspacePool() {
    for (auto& [size, blocks] : free_) {
      for (void* p : blocks) api_->FreeDataSpace(device_, p);
    }
    for (auto& [p, size] : in_use_) api_->FreeDataSpace(device_, p);
  }

  void* Alloc(size_t nbytes, DLDataType hint) {
    size_t size = std::max<size_t>(kPageSize, (nbytes + kPageSize - 1) / kPageSize * kPageSize);
    void* p = nullptr;
    auto it = free_.lower_bound(size);  // smallest cached block that fits
    if (it != free_.end()) {
      p = it->second.back();
      size = it->first;
      it->second.pop_back();
      if (it->second.empty()) free_.erase(it);
    } else {
      // CPU blocks start on a page: a kernel that streams an operand past a workspace it
      // stores into (a row-vector product's partial rows) stalls on every load when the
      // two sit a few vectors apart modulo 4 KB ("4K aliasing": 1x1024x1024 took 84-88 us
      // instead of 57 at one offset in 16). Page-aligned, the workspace is at offset 0,
      // and operands from this runtime's or numpy's allocators start a little past a page
      // boundary, the harmless side.
      size_t alignment = device_.device_type == kDLCPU ? kPageSize : kAllocAlignment;
      p = api_->AllocDataSpace(device_, size, alignment, hint);
    }
    in_use_.emplace_back(p, size);
    return p;
  }

  void Free(void* p) {
    // LIFO is the common case: search from the most recent allocation.
    for (auto it = in_use_.rbegin(); it != in_use_.rend(); ++it) {
      if (it->first == p) {
        free_[it->second].push_back(p);
        in_use_.erase(std::next(it).base());
        return;
      }
    }
    TVM_FFI_THROW(ValueError) << "TVMBackendFreeWorkspace: pointer " << p
                              << " was not allocated by this thread's workspace pool";
  }

 private:
  DLDevice device_;
  DeviceAPI* api_;
  std::map<size_t, std::vector<void*>> free_;
  std::vector<std::pair<void*, size_t>> in_use_;
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
