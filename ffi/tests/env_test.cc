// Environment: per-thread streams, allocator slots, signal hooks, init-once.
#include <tvm/ffi/extra/c_env_api.h>

#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {
using tvm_ffi_test::TakeErrorKind;

TEST(Env, StreamsArePerThreadAndPerDevice) {
  void* prev = reinterpret_cast<void*>(0x1);
  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 3, reinterpret_cast<void*>(0xAA), &prev), 0);
  EXPECT_EQ(prev, nullptr);
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 3), reinterpret_cast<void*>(0xAA));
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 2), nullptr);
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 1000), nullptr);
  EXPECT_EQ(TVMFFIEnvGetStream(-1, 0), nullptr);
  void* other = reinterpret_cast<void*>(0x1);
  std::thread t([&other] { other = TVMFFIEnvGetStream(kDLCUDA, 3); });
  t.join();
  EXPECT_EQ(other, nullptr);
  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 3, nullptr, &prev), 0);
  EXPECT_EQ(prev, reinterpret_cast<void*>(0xAA));
  EXPECT_EQ(TVMFFIEnvSetStream(-1, 0, nullptr, nullptr), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

int FakeAlloc(DLTensor*, DLManagedTensorVersioned**, void*, void (*)(void*, const char*, const char*)) {
  return -1;
}
int OtherAlloc(DLTensor*, DLManagedTensorVersioned**, void*, void (*)(void*, const char*, const char*)) {
  return -1;
}

TEST(Env, AllocatorThreadSlotWinsOverGlobal) {
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(FakeAlloc, 1, nullptr), 0);
  EXPECT_EQ(TVMFFIEnvGetDLPackManagedTensorAllocator(), FakeAlloc);
  DLPackManagedTensorAllocator seen = nullptr;
  std::thread t([&seen] {
    seen = TVMFFIEnvGetDLPackManagedTensorAllocator();  // falls back to the global one
    TVMFFIEnvSetDLPackManagedTensorAllocator(OtherAlloc, 0, nullptr);
  });
  t.join();
  EXPECT_EQ(seen, FakeAlloc);
  EXPECT_EQ(TVMFFIEnvGetDLPackManagedTensorAllocator(), FakeAlloc);
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 1, nullptr), 0);
  EXPECT_EQ(TVMFFIEnvGetDLPackManagedTensorAllocator(), nullptr);
}

TEST(Env, CheckSignalsThroughHostHooks) {
  EXPECT_EQ(TVMFFIEnvCheckSignals(), 0);  // no host registered
  static int pending = 0;
  ASSERT_EQ(TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", reinterpret_cast<void*>(+[]() { return pending; })), 0);
  EXPECT_EQ(TVMFFIEnvCheckSignals(), 0);
  pending = -1;
  EXPECT_EQ(TVMFFIEnvCheckSignals(), -1);
  EXPECT_EQ(TakeErrorKind(), "EnvErrorAlreadySet");
  ASSERT_EQ(TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", nullptr), 0);
  EXPECT_EQ(TVMFFIEnvRegisterCAPI("NoSuchHook", nullptr), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

std::atomic<int> g_inits{0};
int g_payload = 7;

TEST(Env, InitOnceRunsOnceAcrossThreads) {
  static void* handle = nullptr;
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([] {
      for (int k = 0; k < 100; ++k) {
        ASSERT_EQ(TVMFFIHandleInitOnce(&handle, [](void** out) {
          ++g_inits;
          *out = &g_payload;
          return 0;
        }), 0);
        ASSERT_EQ(handle, &g_payload);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(g_inits.load(), 1);
  static int deinits = 0;
  ASSERT_EQ(TVMFFIHandleDeinitOnce(&handle, [](void* h) {
    deinits += (h == &g_payload);
    return 0;
  }), 0);
  EXPECT_EQ(handle, nullptr);
  ASSERT_EQ(TVMFFIHandleDeinitOnce(&handle, [](void*) {
    ++deinits;
    return 0;
  }), 0);
  EXPECT_EQ(deinits, 1);
  // An init that yields NULL is an error and leaves the slot empty.
  EXPECT_EQ(TVMFFIHandleInitOnce(&handle, [](void** out) {
    *out = nullptr;
    return 0;
  }), -1);
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
  EXPECT_EQ(handle, nullptr);
}

}  // namespace
