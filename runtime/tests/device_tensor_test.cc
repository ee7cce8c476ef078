// CPU device API, tensor allocation and copies (strided too), the env allocator hook.
#include <gtest/gtest.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/runtime/device_api.h>
#include <tvm/runtime/tensor.h>

#include <numeric>
#include <random>
#include <vector>

namespace {
using namespace tvm;
using runtime::DeviceAPI;

constexpr DLDevice kCPU{kDLCPU, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};

std::string KindOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ffi::Error& e) {
    return e.kind();
  }
  return "";
}

TEST(DeviceAPI, CpuIsRegisteredAndAligned) {
  DeviceAPI* api = DeviceAPI::Get(kCPU);
  ASSERT_NE(api, nullptr);
  void* p = api->AllocDataSpace(kCPU, 1000, 64, kF32);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  std::memset(p, 1, 1000);
  api->FreeDataSpace(kCPU, p);
  ffi::Any exist;
  api->GetAttr(kCPU, runtime::kExist, &exist);
  EXPECT_EQ(exist.cast<int64_t>(), 1);
  ffi::Any total;
  api->GetAttr(kCPU, runtime::kTotalGlobalMemory, &total);
  EXPECT_GT(total.cast<int64_t>(), 0);
  EXPECT_EQ(KindOf([&] { api->AllocDataSpace(kCPU, 8, 48, kF32); }), "ValueError");
}

TEST(DeviceAPI, MissingBackendIsAClearError) {
  DLDevice cuda{kDLCUDA, 0};
  EXPECT_EQ(DeviceAPI::Get(cuda, /*allow_missing=*/true), nullptr);
  EXPECT_EQ(KindOf([&] { DeviceAPI::Get(cuda); }), "RuntimeError");
  ffi::Function attr = ffi::Function::GetGlobalRequired("runtime.GetDeviceAttr");
  EXPECT_EQ(attr(int64_t{kDLCUDA}, 0, int64_t{runtime::kExist}).cast<int64_t>(), 0);
  EXPECT_TRUE(attr(int64_t{kDLCUDA}, 0, int64_t{runtime::kDeviceName}).is_none());
  EXPECT_EQ(attr(int64_t{kDLCPU}, 0, int64_t{runtime::kExist}).cast<int64_t>(), 1);
}

TEST(Tensor, EmptyCopyBytesRoundTrip) {
  runtime::Tensor t = runtime::Empty({3, 4}, kF32, kCPU);
  EXPECT_EQ(t.numel(), 12);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % runtime::kAllocAlignment, 0u);
  std::vector<float> in(12), out(12, -1.0f);
  std::iota(in.begin(), in.end(), 0.5f);
  runtime::CopyFromBytes(t, in.data(), in.size() * 4);
  runtime::CopyToBytes(t, out.data(), out.size() * 4);
  EXPECT_EQ(in, out);
  EXPECT_EQ(KindOf([&] { runtime::CopyToBytes(t, out.data(), 4); }), "ValueError");
  EXPECT_EQ(KindOf([&] { runtime::Empty({-1}, kF32, kCPU); }), "ValueError");
  EXPECT_EQ(KindOf([&] { runtime::Empty({2}, kF32, DLDevice{kDLCUDA, 0}); }), "RuntimeError");
  runtime::Tensor empty = runtime::Empty({0, 5}, kF32, kCPU);
  EXPECT_EQ(empty.numel(), 0);
}

TEST(Tensor, StridedCopiesMatchElementwiseReference) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 200; ++iter) {
    int ndim = 1 + rng() % 4;
    std::vector<int64_t> shape(ndim);
    for (auto& s : shape) s = 1 + rng() % 5;
    // Source: a random permutation of a compact buffer's axes (a transposed view).
    std::vector<int> perm(ndim);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<int64_t> base_shape(ndim);
    for (int i = 0; i < ndim; ++i) base_shape[perm[i]] = shape[i];
    std::vector<int64_t> base_strides(ndim);
    int64_t st = 1;
    for (int i = ndim - 1; i >= 0; --i) {
      base_strides[i] = st;
      st *= base_shape[i];
    }
    std::vector<int32_t> data(st);
    std::iota(data.begin(), data.end(), 0);
    std::vector<int64_t> view_strides(ndim);
    for (int i = 0; i < ndim; ++i) view_strides[i] = base_strides[perm[i]];
    DLTensor src{data.data(), kCPU, ndim, DLDataType{kDLInt, 32, 1}, shape.data(), view_strides.data(), 0};
    runtime::Tensor dst = runtime::Empty(shape, DLDataType{kDLInt, 32, 1}, kCPU);
    runtime::CopyFromTo(&src, dst.GetDLTensorPtr());
    // Reference: walk every index.
    const int32_t* out = static_cast<const int32_t*>(dst.data_ptr());
    std::vector<int64_t> idx(ndim, 0);
    for (int64_t flat = 0; flat < dst.numel(); ++flat) {
      int64_t off = 0;
      for (int i = 0; i < ndim; ++i) off += idx[i] * view_strides[i];
      ASSERT_EQ(out[flat], data[off]) << "iter " << iter;
      for (int i = ndim - 1; i >= 0; --i) {
        if (++idx[i] < shape[i]) break;
        idx[i] = 0;
      }
    }
  }
}

TEST(Tensor, CopyChecksShapeAndDtype) {
  runtime::Tensor a = runtime::Empty({2, 3}, kF32, kCPU);
  runtime::Tensor b = runtime::Empty({3, 2}, kF32, kCPU);
  runtime::Tensor c = runtime::Empty({2, 3}, DLDataType{kDLInt, 32, 1}, kCPU);
  EXPECT_EQ(KindOf([&] { runtime::CopyFromTo(a.GetDLTensorPtr(), b.GetDLTensorPtr()); }), "ValueError");
  EXPECT_EQ(KindOf([&] { runtime::CopyFromTo(a.GetDLTensorPtr(), c.GetDLTensorPtr()); }), "TypeError");
}

TEST(Tensor, EnvAllocatorIsTheRuntime) {
  // libtvm_ffi's Tensor::FromEnvAlloc is served by the runtime once it is loaded.
  ffi::Tensor t = ffi::Tensor::FromEnvAlloc({4, 4}, kF32, kCPU);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % runtime::kAllocAlignment, 0u);
  static_cast<float*>(t.data_ptr())[15] = 1.0f;
  EXPECT_THROW(ffi::Tensor::FromEnvAlloc({4}, kF32, DLDevice{kDLCUDA, 0}), ffi::Error);
}

}  // namespace
