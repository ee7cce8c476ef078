#include "allocator.h"

#include <tvm/ffi/container/array.h>

#include <map>
#include <tuple>

#include "../support/registry.h"

namespace tvm {
namespace runtime {
namespace memory {

namespace {
constexpr size_t kMaxAlignment = 4096;
constexpr size_t kLargeClass = size_t{1} << 20;

void CheckAlignment(size_t alignment) {
  TVM_FFI_CHECK(alignment != 0 && (alignment & (alignment - 1)) == 0 && alignment <= kMaxAlignment,
                ValueError)
      << "alignment " << alignment << " must be a power of two <= " << kMaxAlignment;
}
}  // namespace

Buffer NaiveAllocator::Alloc(size_t nbytes, size_t alignment, DLDataType hint) {
  CheckAlignment(alignment);
  Buffer b;
  b.data = api_->AllocDataSpace(device_, nbytes, alignment, hint);
  b.size = nbytes;
  b.device = device_;
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.num_allocs;
  ++stats_.num_device_allocs;
  stats_.bytes_in_use += nbytes;
  stats_.bytes_reserved += nbytes;
  stats_.peak_bytes_reserved = std::max(stats_.peak_bytes_reserved, stats_.bytes_reserved);
  return b;
}

void NaiveAllocator::Free(const Buffer& buffer) {
  api_->FreeDataSpace(device_, buffer.data);
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.bytes_in_use -= buffer.size;
  stats_.bytes_reserved -= buffer.size;
}

size_t PooledAllocator::SizeClass(size_t nbytes) {
  if (nbytes <= 64) return 64;
  if (nbytes <= kLargeClass) {
    size_t c = 64;
    while (c < nbytes) c <<= 1;
    return c;
  }
  return (nbytes + kLargeClass - 1) / kLargeClass * kLargeClass;
}

Buffer PooledAllocator::Alloc(size_t nbytes, size_t alignment, DLDataType hint) {
  CheckAlignment(alignment);
  size_t cls = SizeClass(nbytes);
  Buffer b;
  b.size = cls;
  b.device = device_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.num_allocs;
    auto it = free_lists_.find(cls);
    if (it != free_lists_.end() && !it->second.empty()) {
      b.data = it->second.back();
      it->second.pop_back();
      stats_.bytes_in_use += cls;
      return b;
    }
  }
  // Every block is allocated at the maximum alignment so any later request can reuse it.
  try {
    b.data = api_->AllocDataSpace(device_, cls, kMaxAlignment, hint);
  } catch (const ffi::Error&) {
    // Out of memory with blocks cached: give them back and try once more.
    ReleaseCached();
    b.data = api_->AllocDataSpace(device_, cls, kMaxAlignment, hint);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.num_device_allocs;
  stats_.bytes_in_use += cls;
  stats_.bytes_reserved += cls;
  stats_.peak_bytes_reserved = std::max(stats_.peak_bytes_reserved, stats_.bytes_reserved);
  return b;
}

void PooledAllocator::Free(const Buffer& buffer) {
  std::lock_guard<std::mutex> lock(mutex_);
  TVM_FFI_CHECK(buffer.size == SizeClass(buffer.size), ValueError)
      << "buffer of " << buffer.size << " bytes was not allocated by a pooled allocator";
  free_lists_[buffer.size].push_back(buffer.data);
  stats_.bytes_in_use -= buffer.size;
}

void PooledAllocator::ReleaseCached() {
  std::unordered_map<size_t, std::vector<void*>> lists;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lists.swap(free_lists_);
    for (auto& [cls, blocks] : lists) stats_.bytes_reserved -= cls * blocks.size();
  }
  for (auto& [cls, blocks] : lists) {
    for (void* p : blocks) api_->FreeDataSpace(device_, p);
  }
}

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::tuple<int, int, int>, std::unique_ptr<Allocator>> allocators;
};
Registry& GetRegistry() {
  static Registry* r = new Registry();  // leaked: allocators may be used during exit
  return *r;
}
}  // namespace

Allocator* GetAllocator(DLDevice device, AllocatorKind kind) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto key = std::make_tuple(static_cast<int>(device.device_type), device.device_id, static_cast<int>(kind));
  auto it = r.allocators.find(key);
  if (it != r.allocators.end()) return it->second.get();
  std::unique_ptr<Allocator> a;
  if (kind == AllocatorKind::kNaive) {
    a = std::make_unique<NaiveAllocator>(device);
  } else {
    a = std::make_unique<PooledAllocator>(device);
  }
  Allocator* raw = a.get();
  r.allocators.emplace(key, std::move(a));
  return raw;
}

void ReleaseAllCached() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& [key, a] : r.allocators) a->ReleaseCached();
}

namespace {
AllocatorKind KindFromInt(int64_t k) {
  TVM_FFI_CHECK(k == 1 || k == 2, ValueError) << "allocator kind must be 1 (naive) or 2 (pooled), got " << k;
  return static_cast<AllocatorKind>(k);
}
}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  // Raw allocation entry points, mainly for tests and benchmarks of the allocators.
  RegisterRuntimeGlobal("runtime.memory.Alloc", [](DLDevice dev, int64_t kind, int64_t nbytes,
                                                   int64_t alignment) {
    TVM_FFI_CHECK(nbytes >= 0, ValueError) << "negative size";
    Buffer b = GetAllocator(dev, KindFromInt(kind))->Alloc(nbytes, alignment, DLDataType{kDLUInt, 8, 1});
    return b.data;
  });
  RegisterRuntimeGlobal("runtime.memory.Free", [](DLDevice dev, int64_t kind, void* ptr, int64_t nbytes) {
    Allocator* a = GetAllocator(dev, KindFromInt(kind));
    Buffer b;
    b.data = ptr;
    b.device = dev;
    b.size = a->kind() == AllocatorKind::kPooled ? PooledAllocator::SizeClass(nbytes) : nbytes;
    a->Free(b);
  });
  RegisterRuntimeGlobal("runtime.memory.Stats", [](DLDevice dev, int64_t kind) {
    AllocatorStats s = GetAllocator(dev, KindFromInt(kind))->stats();
    return ffi::Array<int64_t>{s.bytes_in_use, s.bytes_reserved, s.peak_bytes_reserved,
                               s.num_allocs, s.num_device_allocs};
  });
  RegisterRuntimeGlobal("runtime.memory.ReleaseCached", []() { ReleaseAllCached(); });
}

}  // namespace memory
}  // namespace runtime
}  // namespace tvm
