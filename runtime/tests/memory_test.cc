// Allocators (naive, pooled: size classes, reuse, release, stats) and kernel workspaces.
#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/device_api.h>

#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {
using namespace tvm;
constexpr DLDevice kCPU{kDLCPU, 0};
constexpr int64_t kNaive = 1, kPooled = 2;

ffi::Function G(const char* name) { return ffi::Function::GetGlobalRequired(name); }
std::vector<int64_t> Stats(int64_t kind) {
  ffi::Array<int64_t> s = G("runtime.memory.Stats")(kCPU, kind).cast<ffi::Array<int64_t>>();
  return std::vector<int64_t>(s.begin(), s.end());
}

TEST(PooledAllocator, ReusesFreedBlocksOfTheSameClass) {
  G("runtime.memory.ReleaseCached")();
  std::vector<int64_t> before = Stats(kPooled);
  void* a = G("runtime.memory.Alloc")(kCPU, kPooled, int64_t{1000}, int64_t{64}).cast<void*>();
  G("runtime.memory.Free")(kCPU, kPooled, a, int64_t{1000});
  // 900 bytes falls in the same 1024-byte class: the same block comes back.
  void* b = G("runtime.memory.Alloc")(kCPU, kPooled, int64_t{900}, int64_t{128}).cast<void*>();
  EXPECT_EQ(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 128, 0u);
  std::vector<int64_t> mid = Stats(kPooled);
  EXPECT_EQ(mid[4] - before[4], 1);  // one device allocation for two requests
  EXPECT_EQ(mid[3] - before[3], 2);
  G("runtime.memory.Free")(kCPU, kPooled, b, int64_t{900});
  G("runtime.memory.ReleaseCached")();
  std::vector<int64_t> after = Stats(kPooled);
  EXPECT_EQ(after[0], before[0]);  // nothing in use
  EXPECT_EQ(after[1], 0);          // nothing cached
}

TEST(PooledAllocator, MixedSizesStayBalanced) {
  std::mt19937 rng(3);
  std::vector<std::pair<void*, int64_t>> live;
  for (int i = 0; i < 3000; ++i) {
    if (!live.empty() && rng() % 2) {
      size_t k = rng() % live.size();
      G("runtime.memory.Free")(kCPU, kPooled, live[k].first, live[k].second);
      live.erase(live.begin() + k);
    } else {
      int64_t n = 1 + rng() % (1 << (rng() % 22));
      void* p = G("runtime.memory.Alloc")(kCPU, kPooled, n, int64_t{64}).cast<void*>();
      static_cast<char*>(p)[n - 1] = 1;  // the whole request is usable (ASan checks)
      live.emplace_back(p, n);
    }
  }
  for (auto& [p, n] : live) G("runtime.memory.Free")(kCPU, kPooled, p, n);
  EXPECT_EQ(Stats(kPooled)[0], 0);
  G("runtime.memory.ReleaseCached")();
  EXPECT_EQ(Stats(kPooled)[1], 0);
}

TEST(NaiveAllocator, CountsBytes) {
  std::vector<int64_t> before = Stats(kNaive);
  void* p = G("runtime.memory.Alloc")(kCPU, kNaive, int64_t{5000}, int64_t{64}).cast<void*>();
  EXPECT_EQ(Stats(kNaive)[0] - before[0], 5000);
  G("runtime.memory.Free")(kCPU, kNaive, p, int64_t{5000});
  EXPECT_EQ(Stats(kNaive)[0], before[0]);
  EXPECT_THROW(G("runtime.memory.Alloc")(kCPU, int64_t{7}, int64_t{8}, int64_t{8}), ffi::Error);
  EXPECT_THROW(G("runtime.memory.Alloc")(kCPU, kNaive, int64_t{8}, int64_t{3}), ffi::Error);
}

TEST(Workspace, LifoReuseAndBadFree) {
  void* a = TVMBackendAllocWorkspace(kDLCPU, 0, 100, kDLFloat, 32);
  void* b = TVMBackendAllocWorkspace(kDLCPU, 0, 5000, kDLFloat, 32);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  static_cast<char*>(b)[4999] = 1;
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);
  // The same pattern again gets the same blocks back.
  EXPECT_EQ(TVMBackendAllocWorkspace(kDLCPU, 0, 100, kDLFloat, 32), a);
  EXPECT_EQ(TVMBackendAllocWorkspace(kDLCPU, 0, 5000, kDLFloat, 32), b);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);
  int x = 0;
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, &x), -1);
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(std::string(TVMFFIErrorGetCellPtr(err)->kind.data), "ValueError");
  TVMFFIObjectDecRef(err);
  EXPECT_EQ(TVMBackendAllocWorkspace(kDLCUDA, 0, 8, kDLFloat, 32), nullptr);  // no backend
  TVMFFIErrorMoveFromRaised(&err);
  EXPECT_NE(err, nullptr);
  TVMFFIObjectDecRef(err);
}

TEST(Workspace, ImpossibleSizesFailWithMemoryError) {
  // Sizes whose rounding to pages would wrap around to a small block fail cleanly.
  for (uint64_t nbytes : {~uint64_t{0}, ~uint64_t{0} - 4095, uint64_t{1} << 63}) {
    EXPECT_EQ(TVMBackendAllocWorkspace(kDLCPU, 0, nbytes, kDLFloat, 32), nullptr) << nbytes;
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(std::string(TVMFFIErrorGetCellPtr(err)->kind.data), "MemoryError");
    TVMFFIObjectDecRef(err);
  }
  void* ok = TVMBackendAllocWorkspace(kDLCPU, 0, 64, kDLFloat, 32);  // the pool still works
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, ok), 0);
}

TEST(Workspace, PoolsArePerThread) {
  void* main_block = TVMBackendAllocWorkspace(kDLCPU, 0, 64, kDLFloat, 32);
  int other_free_rc = 0;
  std::thread t([&] { other_free_rc = TVMBackendFreeWorkspace(kDLCPU, 0, main_block); });
  t.join();
  EXPECT_EQ(other_free_rc, -1);  // another thread's pool does not own it
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, main_block), 0);
}

// CPU workspaces below 2 MiB start half a page past a page boundary, larger ones on a page;
// buffers of 64 KiB and more start on a page (workspace_pool.cc: a kernel streaming an
// operand while it stores into a workspace is slowest with the workspace a few vectors
// ahead modulo 4 KB, and slower at the same offset than half a page away). Every byte asked
// for can be written, and a cached block comes back at the same address. Smaller buffers
// keep the alignment asked.
TEST(Alignment, WorkspacesHalfAPageInAndLargeBuffersOnAPage) {
  std::mt19937 rng(7);
  std::vector<std::pair<void*, uint64_t>> blocks;
  for (int rep = 0; rep < 40; ++rep) {
    uint64_t nbytes = 1 + rng() % (rep < 30 ? (2u << 20) : (6u << 20));
    void* w = TVMBackendAllocWorkspace(kDLCPU, 0, nbytes, kDLFloat, 32);
    ASSERT_NE(w, nullptr);
    uint64_t rounded = (nbytes + 4095) / 4096 * 4096;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(w) % 4096, rounded + 4096 < (2u << 20) ? 2048u : 0u) << nbytes;
    std::memset(w, 0x5a, nbytes);
    blocks.emplace_back(w, nbytes);
  }
  auto free_all = [&] {
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
      EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, it->first), 0);
    }
  };
  free_all();
  for (const auto& [w, nbytes] : blocks) {  // the same sizes in the same order: the cached blocks
    EXPECT_EQ(TVMBackendAllocWorkspace(kDLCPU, 0, nbytes, kDLFloat, 32), w) << nbytes;
  }
  free_all();
  runtime::DeviceAPI* cpu = runtime::DeviceAPI::Get(kCPU);
  for (int rep = 0; rep < 40; ++rep) {
    size_t nbytes = 1 + rng() % (1 << 20);
    void* p = cpu->AllocDataSpace(kCPU, nbytes, 64, DLDataType{kDLFloat, 32, 1});
    uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    EXPECT_EQ(addr % (nbytes >= (64u << 10) ? 4096 : 64), 0u) << nbytes;
    cpu->FreeDataSpace(kCPU, p);
  }
}

TEST(Alignment, HugePagesForBuffersFromTwoToThirtyTwoMegabytes) {
  // From 2 MiB to 32 MiB a buffer starts on a 2 MiB boundary (a transparent huge page where
  // the kernel allows them); its whole size can be written.
  std::mt19937 rng(11);
  runtime::DeviceAPI* cpu = runtime::DeviceAPI::Get(kCPU);
  for (int rep = 0; rep < 12; ++rep) {
    size_t nbytes = (1u << 20) + rng() % (6u << 20);
    void* p = cpu->AllocDataSpace(kCPU, nbytes, 64, DLDataType{kDLFloat, 32, 1});
    ASSERT_NE(p, nullptr);
    uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    EXPECT_EQ(addr % (nbytes >= (2u << 20) ? (2u << 20) : 4096), 0u) << nbytes;
    std::memset(p, 0x5a, nbytes);
    EXPECT_EQ(static_cast<unsigned char*>(p)[nbytes - 1], 0x5a);
    cpu->FreeDataSpace(kCPU, p);
  }
}

}  // namespace
