/*
 * Device memory allocators used by the VM and the workspace: a naive one (straight to the
 * device API) and a pooled one (size classes, reuse, explicit release). Private to the runtime.
 */
#ifndef TVM_RUNTIME_SRC_MEMORY_ALLOCATOR_H_
#define TVM_RUNTIME_SRC_MEMORY_ALLOCATOR_H_

#include <tvm/runtime/device_api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tvm {
namespace runtime {
namespace memory {

enum class AllocatorKind : int { kNaive = 1, kPooled = 2 };

/*! \brief A block of device memory. `size` is what the allocator reserved (>= requested). */
struct Buffer {
  void* data = nullptr;
  size_t size = 0;
  DLDevice device{kDLCPU, 0};
};

/*! \brief Counters every allocator keeps (bytes are the reserved sizes). */
struct AllocatorStats {
  int64_t bytes_in_use = 0;      // handed out and not yet freed
  int64_t bytes_reserved = 0;    // held from the device (in use + cached)
  int64_t peak_bytes_reserved = 0;
  int64_t num_allocs = 0;        // Alloc calls
  int64_t num_device_allocs = 0; // Alloc calls that reached the device API
};

class Allocator {
 public:
  explicit Allocator(DLDevice device) : device_(device), api_(DeviceAPI::Get(device)) {}
  virtual ~Allocator() = default;
  /*! \brief At least `nbytes` with the given alignment (a power of two <= 4096). */
  virtual Buffer Alloc(size_t nbytes, size_t alignment, DLDataType hint) = 0;
  virtual void Free(const Buffer& buffer) = 0;
  /*! \brief Returns cached memory to the device (no-op for the naive allocator). */
  virtual void ReleaseCached() {}
  virtual AllocatorKind kind() const = 0;
  AllocatorStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  DLDevice device() const { return device_; }

 protected:
  DLDevice device_;
  DeviceAPI* api_;
  mutable std::mutex mutex_;
  AllocatorStats stats_;
};

class NaiveAllocator final : public Allocator {
 public:
  using Allocator::Allocator;
  Buffer Alloc(size_t nbytes, size_t alignment, DLDataType hint) final;
  void Free(const Buffer& buffer) final;
  AllocatorKind kind() const final { return AllocatorKind::kNaive; }
};

/*!
 * \brief Keeps freed blocks in per-size-class free lists and reuses them. Size classes are
 * powers of two up to 1 MiB and multiples of 1 MiB above, so mixed sizes share blocks while
 * waste stays under half a block (small) or 1 MiB (large).
 */
class PooledAllocator final : public Allocator {
 public:
  using Allocator::Allocator;
  ~PooledAllocator() override { ReleaseCached(); }
  Buffer Alloc(size_t nbytes, size_t alignment, DLDataType hint) final;
  void Free(const Buffer& buffer) final;
  void ReleaseCached() final;
  AllocatorKind kind() const final { return AllocatorKind::kPooled; }
  /*! \brief The size class a request of `nbytes` is served from. */
  static size_t SizeClass(size_t nbytes);

 private:
  std::unordered_map<size_t, std::vector<void*>> free_lists_;
};

/*! \brief The allocator of a (device, kind), created on first use; lives for the process. */
Allocator* GetAllocator(DLDevice device, AllocatorKind kind);

/*! \brief Releases the cached memory of every pooled allocator. */
void ReleaseAllCached();

}  // namespace memory
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_MEMORY_ALLOCATOR_H_
