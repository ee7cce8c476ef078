// The vm.builtin.* functions called directly (as a binding or a test would): storage and
// tensor allocation through the VM's allocators, views, copies, shapes, tuples, checks and
// conditions.
#include "vm_test_util.h"

namespace {
using namespace tvm_vm_test;
using rvm::Arg;

/*! A VM with one trivial function: builtins that allocate need one as their context. */
ffi::Module ContextVM(rvm::AllocatorKind kind = rvm::AllocatorKind::kPooled) {
  rvm::ExecBuilder b;
  b.EmitFunction("id", 1);
  b.EmitRet(0);
  b.EndFunction("id");
  return rvm::VirtualMachine::Create(b.Get(), kCPU, kind).module();
}

ffi::Any Call(const char* name, std::vector<ffi::Any> args) {
  std::vector<ffi::AnyView> views(args.begin(), args.end());
  ffi::Any rv;
  G(name).CallPacked(views.data(), static_cast<int32_t>(views.size()), &rv);
  return rv;
}

TEST(VMBuiltins, StorageAndTensorViews) {
  ffi::Module vm = ContextVM();
  ffi::Any storage = Call("vm.builtin.alloc_storage", {vm, int64_t{64}, int64_t{0}, kF32});
  EXPECT_EQ(storage.GetTypeKey(), "runtime.vm.Storage");
  EXPECT_EQ(Call("vm.builtin.storage_nbytes", {storage}).cast<int64_t>(), 64);
  // A Shape size counts elements of the dtype hint.
  ffi::Any by_shape = Call("vm.builtin.alloc_storage", {vm, ffi::Shape({3, 5}), int64_t{-1}, kF32});
  EXPECT_EQ(Call("vm.builtin.storage_nbytes", {by_shape}).cast<int64_t>(), 60);

  ffi::Tensor a = Call("vm.builtin.alloc_tensor", {storage, int64_t{0}, ffi::Shape({2, 4}), kF32})
                      .cast<ffi::Tensor>();
  ffi::Tensor b = Call("vm.builtin.alloc_tensor", {storage, int64_t{32}, ffi::Shape({8}), kF32})
                      .cast<ffi::Tensor>();
  ffi::Tensor whole = Call("vm.builtin.alloc_tensor", {storage, int64_t{0}, ffi::Shape({16}), kF32})
                          .cast<ffi::Tensor>();
  tvm::runtime::CopyFromBytes(a, std::vector<float>(8, 1).data(), 32);
  tvm::runtime::CopyFromBytes(b, std::vector<float>(8, 2).data(), 32);
  std::vector<float> expect(16, 1);
  std::fill(expect.begin() + 8, expect.end(), 2);
  EXPECT_EQ(Values(whole), expect);  // the views share the storage
  EXPECT_EQ(b.byte_offset(), 0u);
  EXPECT_VM_ERROR(Call("vm.builtin.alloc_tensor", {storage, int64_t{8}, ffi::Shape({16}), kF32}),
                  "ValueError", "does not fit");
  EXPECT_VM_ERROR(Call("vm.builtin.alloc_tensor", {storage, int64_t{-1}, ffi::Shape({1}), kF32}),
                  "ValueError", "does not fit");
  EXPECT_VM_ERROR(Call("vm.builtin.alloc_tensor", {storage, int64_t{0}, ffi::Shape({-1}), kF32}),
                  "ValueError", "negative");
  EXPECT_VM_ERROR(Call("vm.builtin.alloc_storage", {vm, int64_t{-5}, int64_t{0}, kF32}),
                  "ValueError", "negative size");
  EXPECT_VM_ERROR(Call("vm.builtin.alloc_storage", {vm, "big", int64_t{0}, kF32}), "TypeError",
                  "int (bytes) or a Shape");
  EXPECT_VM_ERROR(Call("vm.builtin.alloc_storage", {ffi::Shape({1}), int64_t{8}, int64_t{0}, kF32}),
                  "TypeError", "alloc_storage");
  // The storage is released only when the last view dies.
  storage = ffi::Any();
  EXPECT_EQ(Values(b), std::vector<float>(8, 2));
}

TEST(VMBuiltins, AllocationsGoThroughTheVMsAllocator) {
  for (rvm::AllocatorKind kind : {rvm::AllocatorKind::kNaive, rvm::AllocatorKind::kPooled}) {
    ffi::Module vm = ContextVM(kind);
    auto stats = [kind] {
      return G("runtime.memory.Stats")(kCPU, static_cast<int64_t>(kind))
          .cast<ffi::Array<int64_t>>();
    };
    int64_t in_use = stats()[0], allocs = stats()[3];
    {
      ffi::Tensor t =
          Call("vm.builtin.empty", {vm, ffi::Shape({10}), kF32, int64_t{0}}).cast<ffi::Tensor>();
      EXPECT_EQ(ShapeOf(t), std::vector<int64_t>{10});
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
      EXPECT_EQ(stats()[3], allocs + 1);
    }
    EXPECT_EQ(stats()[0], in_use);  // freed back to the allocator with the tensor
  }
}

TEST(VMBuiltins, CopyReshapeAndShapes) {
  ffi::Module vm = ContextVM();
  ffi::Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  ffi::Tensor c = Call("vm.builtin.copy", {vm, x}).cast<ffi::Tensor>();
  EXPECT_NE(c.data_ptr(), x.data_ptr());
  EXPECT_EQ(Values(c), Values(x));
  ffi::Tensor d = Call("vm.builtin.to_device", {vm, x, int64_t{-1}}).cast<ffi::Tensor>();
  EXPECT_EQ(Values(d), Values(x));
  ffi::Tensor r = Call("vm.builtin.reshape", {x, ffi::Shape({3, 2})}).cast<ffi::Tensor>();
  EXPECT_EQ(ShapeOf(r), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.data_ptr(), x.data_ptr());
  EXPECT_VM_ERROR(Call("vm.builtin.reshape", {x, ffi::Shape({4})}), "ValueError", "cannot view");

  ffi::Shape s = Call("vm.builtin.shape_of", {x}).cast<ffi::Shape>();
  EXPECT_EQ(s, ffi::Shape({2, 3}));
  EXPECT_EQ(Call("vm.builtin.make_shape", {int64_t{4}, int64_t{0}}).cast<ffi::Shape>(),
            ffi::Shape({4, 0}));
  EXPECT_EQ(Call("vm.builtin.make_shape", {}).cast<ffi::Shape>().size(), 0u);
  EXPECT_VM_ERROR(Call("vm.builtin.make_shape", {int64_t{1}, 2.5}), "TypeError", "dimension 1");
  EXPECT_NO_THROW(Call("vm.builtin.match_shape", {x, "ctx", int64_t{2}, ffi::Any()}));
  EXPECT_NO_THROW(Call("vm.builtin.match_shape", {s, "ctx", ffi::Any(), int64_t{3}}));
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, "f: x", int64_t{2}}), "ValueError",
                  "f: x: expected shape [2], got [2, 3]");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, "f: x", int64_t{3}, ffi::Any()}),
                  "ValueError", "expected shape [3, ?], got [2, 3]");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {int64_t{1}, "f: y"}), "TypeError",
                  "f: y: expected a Tensor or Shape");
}

TEST(VMBuiltins, TuplesChecksAndConditions) {
  ffi::Tensor x = F32({2, 3}, std::vector<float>(6, 0));
  ffi::Array<ffi::Any> t =
      Call("vm.builtin.make_tuple", {int64_t{1}, x, "s"}).cast<ffi::Array<ffi::Any>>();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(Call("vm.builtin.tuple_getitem", {t, int64_t{0}}).cast<int64_t>(), 1);
  EXPECT_EQ(Call("vm.builtin.tuple_getitem", {t, int64_t{-1}}).cast<std::string>(), "s");
  EXPECT_EQ(Call("vm.builtin.tuple_getitem", {ffi::Shape({7, 8}), int64_t{1}}).cast<int64_t>(), 8);
  EXPECT_VM_ERROR(Call("vm.builtin.tuple_getitem", {t, int64_t{3}}), "IndexError", "out of range");
  EXPECT_VM_ERROR(Call("vm.builtin.tuple_getitem", {x, int64_t{0}}), "TypeError", "tuple");

  EXPECT_NO_THROW(Call("vm.builtin.check_tensor_info", {x, int64_t{2}, kF32, "c"}));
  EXPECT_NO_THROW(Call("vm.builtin.check_tensor_info", {x, int64_t{-1}, ffi::Any(), "c"}));
  EXPECT_VM_ERROR(Call("vm.builtin.check_tensor_info", {t, int64_t{2}, kF32, "g: a"}),
                  "TypeError", "g: a: expected a Tensor, got `ffi.Array`");
  EXPECT_NO_THROW(Call("vm.builtin.check_shape_info", {ffi::Shape({1, 2}), int64_t{2}, "c"}));
  EXPECT_VM_ERROR(Call("vm.builtin.check_shape_info", {ffi::Shape({1}), int64_t{2}, "g: s"}),
                  "ValueError", "g: s: expected a Shape of 2 dimensions, got 1");
  EXPECT_NO_THROW(Call("vm.builtin.check_tuple_info", {t, int64_t{3}, "c"}));
  EXPECT_VM_ERROR(Call("vm.builtin.check_tuple_info", {t, int64_t{2}, "g: t"}), "ValueError",
                  "g: t: expected a tuple of 2 items, got 3");
  EXPECT_VM_ERROR(Call("vm.builtin.check_tuple_info", {x, int64_t{2}, "g: t"}), "TypeError",
                  "g: t: expected a tuple");

  auto cond = [](ffi::Any v) { return Call("vm.builtin.read_if_cond", {v}).cast<bool>(); };
  EXPECT_TRUE(cond(int64_t{3}));
  EXPECT_FALSE(cond(false));
  EXPECT_TRUE(cond(F32({}, {0.5f})));
  EXPECT_FALSE(cond(F32({1, 1}, {0.0f})));
  ffi::Tensor i32 = tvm::runtime::Empty({1}, DLDataType{kDLInt, 32, 1}, kCPU);
  int32_t v = 1 << 20;  // only a high byte set
  tvm::runtime::CopyFromBytes(i32, &v, 4);
  EXPECT_TRUE(cond(i32));
  EXPECT_VM_ERROR(cond(x), "ValueError", "exactly one element");
  EXPECT_VM_ERROR(cond("yes"), "TypeError", "read_if_cond");

  EXPECT_TRUE(Call("vm.builtin.null_value", {}).is_none());
  EXPECT_EQ(Call("vm.builtin.identity", {int64_t{5}}).cast<int64_t>(), 5);
  ffi::Function twice = ffi::Function::FromTyped([](int64_t a) { return 2 * a; });
  EXPECT_EQ(Call("vm.builtin.invoke_closure", {twice, int64_t{21}}).cast<int64_t>(), 42);
  EXPECT_VM_ERROR(Call("vm.builtin.invoke_closure", {}), "TypeError", "invoke_closure");
}

}  // namespace
