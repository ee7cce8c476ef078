// Tensors: DLPack import/export both versions, ownership on failure, views, env allocation.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstdlib>
#include <vector>

#include "test_util.h"

namespace {
using namespace tvm::ffi;
using tvm_ffi_test::TakeErrorKind;

/*! A DLPack producer that records when its deleter runs. */
template <typename Managed>
struct Producer {
  std::vector<float> data;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  Managed managed{};
  bool deleted = false;

  Producer(std::vector<int64_t> shp, std::vector<int64_t> str, uint64_t byte_offset = 0)
      : shape(std::move(shp)), strides(std::move(str)) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    data.resize(n + 8);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
    DLTensor& t = managed.dl_tensor;
    t.data = data.data();
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = DLDataType{kDLFloat, 32, 1};
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = byte_offset;
    managed.manager_ctx = this;
    managed.deleter = [](Managed* self) { static_cast<Producer*>(self->manager_ctx)->deleted = true; };
  }
};

TEST(Tensor, LayoutOfTheObject) {
  static_assert(sizeof(TensorObj) == 24 + sizeof(DLTensor));
  Producer<DLManagedTensorVersioned> p({2, 3}, {});
  Tensor t = Tensor::FromDLPackVersioned(&p.managed);
  TVMFFIObjectHandle h = details::ObjectUnsafe::ToHandle(t.get());
  EXPECT_EQ(TVMFFITensorGetDLTensorPtr(h), t.GetDLTensorPtr());
  EXPECT_EQ(TVMFFITensorGetDLTensorPtr(h)->data, p.data.data());
  // NULL strides are synthesised as compact row-major.
  ASSERT_NE(t.strides(), nullptr);
  EXPECT_EQ(t.strides()[0], 3);
  EXPECT_EQ(t.strides()[1], 1);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_TRUE(t.IsContiguous());
  EXPECT_FALSE(p.deleted);
  t = Tensor();
  EXPECT_TRUE(p.deleted);
}

TEST(Tensor, LegacyRoundTripSharesMemory) {
  Producer<DLManagedTensor> p({4}, {});
  Tensor t = Tensor::FromDLPack(&p.managed);
  DLManagedTensor* out = t.ToDLPack();
  EXPECT_EQ(out->dl_tensor.data, p.data.data());
  static_cast<float*>(out->dl_tensor.data)[1] = 100.0f;
  EXPECT_EQ(p.data[1], 100.0f);
  EXPECT_EQ(t.use_count(), 2);
  out->deleter(out);
  EXPECT_EQ(t.use_count(), 1);
  t = Tensor();
  EXPECT_TRUE(p.deleted);
}

TEST(Tensor, VersionedExportHasVersionAndKeepsTensorAlive) {
  Producer<DLManagedTensorVersioned> p({2, 2}, {});
  DLManagedTensorVersioned* out;
  {
    Tensor t = Tensor::FromDLPackVersioned(&p.managed);
    out = t.ToDLPackVersioned();
  }
  EXPECT_FALSE(p.deleted);
  EXPECT_EQ(out->version.major, 1u);
  EXPECT_EQ(out->version.minor, 3u);
  EXPECT_EQ(out->flags, 0u);
  EXPECT_EQ(out->dl_tensor.shape[1], 2);
  out->deleter(out);
  EXPECT_TRUE(p.deleted);
}

TEST(Tensor, FailedImportLeavesOwnershipWithCaller) {
  // Misaligned: byte_offset 2 on float data.
  Producer<DLManagedTensorVersioned> mis({4}, {}, 2);
  TVMFFIObjectHandle out = nullptr;
  EXPECT_EQ(TVMFFITensorFromDLPackVersioned(&mis.managed, 64, 0, &out), -1);
  std::string msg;
  EXPECT_EQ(TakeErrorKind(&msg), "RuntimeError");
  EXPECT_NE(msg.find("not aligned to 64 bytes"), std::string::npos);
  EXPECT_FALSE(mis.deleted);
  // Non-contiguous when contiguity is required.
  Producer<DLManagedTensor> strided({2, 2}, {1, 2});
  EXPECT_EQ(TVMFFITensorFromDLPack(&strided.managed, 0, 1, &out), -1);
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
  EXPECT_FALSE(strided.deleted);
  // Size-1 dims with odd strides still count as contiguous.
  Producer<DLManagedTensor> unit({1, 3}, {99, 1});
  ASSERT_EQ(TVMFFITensorFromDLPack(&unit.managed, 0, 1, &out), 0);
  TVMFFIObjectDecRef(out);
  EXPECT_TRUE(unit.deleted);
  // Sub-byte padded flag is rejected.
  Producer<DLManagedTensorVersioned> padded({2}, {});
  padded.managed.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  EXPECT_EQ(TVMFFITensorFromDLPackVersioned(&padded.managed, 0, 0, &out), -1);
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
  EXPECT_FALSE(padded.deleted);
  // Bad shapes and null input.
  Producer<DLManagedTensorVersioned> negative({-1}, {});
  EXPECT_EQ(TVMFFITensorFromDLPackVersioned(&negative.managed, 0, 0, &out), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  EXPECT_EQ(TVMFFITensorFromDLPack(nullptr, 0, 0, &out), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  DLManagedTensor* export_out = nullptr;
  EXPECT_EQ(TVMFFITensorToDLPack(nullptr, &export_out), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

TEST(Tensor, UnsafeViewHoldsSource) {
  Producer<DLManagedTensorVersioned> p({4, 4}, {});
  Tensor base = Tensor::FromDLPackVersioned(&p.managed);
  int64_t shape[2] = {2, 2};
  int64_t strides[2] = {4, 1};
  DLTensor proto = *base.GetDLTensorPtr();
  proto.shape = shape;
  proto.strides = strides;
  proto.data = static_cast<float*>(base.data_ptr()) + 5;
  TVMFFIObjectHandle h = nullptr;
  ASSERT_EQ(TVMFFITensorCreateUnsafeView(details::ObjectUnsafe::ToHandle(base.get()), &proto, &h), 0);
  Tensor view(details::ObjectUnsafe::PtrFromOwnedHandle<TensorObj>(h));
  base = Tensor();
  EXPECT_FALSE(p.deleted);
  EXPECT_FALSE(view.IsContiguous());
  EXPECT_EQ(static_cast<float*>(view.data_ptr())[4], 9.0f);  // row 1, col 0 of the view
  view = Tensor();
  EXPECT_TRUE(p.deleted);
  proto.strides = nullptr;
  EXPECT_EQ(TVMFFITensorCreateUnsafeView(nullptr, &proto, &h), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

/*! A CPU allocator for the environment hook. */
int MallocAllocator(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                    void (*set_error)(void*, const char*, const char*)) {
  if (proto->dtype.bits == 0) {
    set_error(ctx, "ValueError", "zero-bit dtype");
    return -1;
  }
  struct Holder {
    DLManagedTensorVersioned managed;
    std::vector<int64_t> shape;
  };
  auto* holder = new Holder();
  holder->shape.assign(proto->shape, proto->shape + proto->ndim);
  size_t bytes = details::DataBytes(proto->dtype, details::ShapeNumel(proto->shape, proto->ndim));
  holder->managed.dl_tensor = *proto;
  holder->managed.dl_tensor.shape = holder->shape.data();
  holder->managed.dl_tensor.strides = nullptr;
  holder->managed.dl_tensor.data = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  holder->managed.manager_ctx = holder;
  holder->managed.deleter = [](DLManagedTensorVersioned* self) {
    auto* h = static_cast<Holder*>(self->manager_ctx);
    std::free(h->managed.dl_tensor.data);
    delete h;
  };
  *out = &holder->managed;
  return 0;
}

TEST(Tensor, EnvAllocThroughInstalledAllocator) {
  DLPackManagedTensorAllocator prev = nullptr;
  EXPECT_THROW_KIND(Tensor::FromEnvAlloc({2}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0}),
                    "RuntimeError");
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(MallocAllocator, 0, &prev), 0);
  EXPECT_EQ(prev, nullptr);
  Tensor t = Tensor::FromEnvAlloc({3, 5}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  EXPECT_EQ(t.numel(), 15);
  static_cast<float*>(t.data_ptr())[14] = 1.0f;  // writable (ASan checks the bound)
  EXPECT_THROW_KIND(Tensor::FromEnvAlloc({3}, DLDataType{kDLFloat, 0, 1}, DLDevice{kDLCPU, 0}),
                    "ValueError");
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(prev, 0, nullptr), 0);
}

TEST(Tensor, FromNDAllocUsesAllocator) {
  struct CountingAlloc {
    int* live;
    void AllocData(DLTensor* t) {
      t->data = std::malloc(details::DataBytes(t->dtype, details::ShapeNumel(t->shape, t->ndim)));
      ++*live;
    }
    void FreeData(DLTensor* t) {
      std::free(t->data);
      --*live;
    }
  };
  int live = 0;
  {
    Tensor t = Tensor::FromNDAlloc(CountingAlloc{&live}, {4, 4}, DLDataType{kDLInt, 32, 1},
                                   DLDevice{kDLCPU, 0});
    EXPECT_EQ(live, 1);
    EXPECT_EQ(t.shape()[0], 4);
    EXPECT_EQ(t.strides()[0], 4);
    Any a = t;
    EXPECT_EQ(a.type_index(), kTVMFFITensor);
    EXPECT_EQ(a.cast<DLTensor*>(), t.GetDLTensorPtr());
  }
  EXPECT_EQ(live, 0);
}

}  // namespace
