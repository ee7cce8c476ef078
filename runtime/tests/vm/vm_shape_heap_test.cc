// The shape-heap forms of vm.builtin.match_shape / make_shape and alloc_shape_heap: storing,
// checking and loading slots, and typed errors for malformed operands (bad slots, codes,
// counts, heaps), never out-of-bounds accesses.
#include "vm_test_util.h"

namespace {
using namespace tvm_vm_test;

constexpr int64_t kNoOp = 0, kImm = 1, kStore = 2, kLoad = 3;  // match_shape codes
constexpr int64_t kUseImm = 0, kLoadShape = 1;                  // make_shape codes

ffi::Module ContextVM() {
  rvm::ExecBuilder b;
  b.EmitFunction("id", 1);
  b.EmitRet(0);
  b.EndFunction("id");
  return rvm::VirtualMachine::Create(b.Get(), kCPU, rvm::AllocatorKind::kPooled).module();
}

ffi::Any Call(const char* name, std::vector<ffi::Any> args) {
  std::vector<ffi::AnyView> views(args.begin(), args.end());
  ffi::Any rv;
  G(name).CallPacked(views.data(), static_cast<int32_t>(views.size()), &rv);
  return rv;
}

TEST(VMShapeHeap, StoreCheckAndLoad) {
  ffi::Module vm = ContextVM();
  ffi::Tensor heap = Call("vm.builtin.alloc_shape_heap", {vm, int64_t{3}}).cast<ffi::Tensor>();
  ASSERT_EQ(heap->ndim, 1);
  EXPECT_EQ(heap->shape[0], 3);
  ffi::Tensor x = F32({2, 5}, std::vector<float>(10, 0.f));
  // x: [n, 5] stores n into slot 1.
  Call("vm.builtin.match_shape", {x, heap, int64_t{2}, kStore, int64_t{1}, kImm, int64_t{5}, "f: x"});
  EXPECT_EQ(static_cast<int64_t*>(heap->data)[1], 2);
  // A shape function would fill slot 2; here the test does.
  static_cast<int64_t*>(heap->data)[2] = 7;
  ffi::Shape s = Call("vm.builtin.make_shape", {heap, int64_t{3}, kLoadShape, int64_t{1}, kUseImm,
                                                int64_t{4}, kLoadShape, int64_t{2}})
                     .cast<ffi::Shape>();
  EXPECT_EQ(s, ffi::Shape({2, 4, 7}));
  // Checks against slots and immediates; the message names the context and both shapes.
  Call("vm.builtin.match_shape", {s, heap, int64_t{3}, kLoad, int64_t{1}, kNoOp, int64_t{0}, kLoad,
                                  int64_t{2}, "f: s"});
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape",
                       {x, heap, int64_t{2}, kLoad, int64_t{2}, kNoOp, int64_t{0}, "f: y"}),
                  "ValueError", "f: y: expected shape [7, ?], got [2, 5]");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, heap, int64_t{1}, kNoOp, int64_t{0}, "f: z"}),
                  "ValueError", "f: z: expected shape [?], got [2, 5]");
  // No heap: immediates only.
  EXPECT_EQ(Call("vm.builtin.make_shape", {ffi::Any(), int64_t{1}, kUseImm, int64_t{9}})
                .cast<ffi::Shape>(),
            ffi::Shape({9}));
  Call("vm.builtin.match_shape", {x, ffi::Any(), int64_t{2}, kImm, int64_t{2}, kNoOp, int64_t{0}, "c"});
}

TEST(VMShapeHeap, MalformedOperandsAreTypedErrors) {
  ffi::Module vm = ContextVM();
  ffi::Any heap = Call("vm.builtin.alloc_shape_heap", {vm, int64_t{2}});
  ffi::Tensor x = F32({2}, {0.f, 0.f});
  EXPECT_VM_ERROR(Call("vm.builtin.alloc_shape_heap", {vm, int64_t{-1}}), "ValueError", "size");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, heap, int64_t{1}, kStore, int64_t{2}, "c"}),
                  "IndexError", "slot 2 out of range");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, heap, int64_t{1}, kLoad, int64_t{-1}, "c"}),
                  "IndexError", "slot -1");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, heap, int64_t{1}, int64_t{9}, int64_t{0}, "c"}),
                  "ValueError", "unknown match_shape code 9");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, heap, int64_t{2}, kNoOp, int64_t{0}, "c"}),
                  "TypeError", "ndim 2");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, heap, int64_t{1}, kNoOp, int64_t{0}, int64_t{1}}),
                  "TypeError", "err_ctx");
  EXPECT_VM_ERROR(Call("vm.builtin.match_shape", {x, ffi::Any(), int64_t{1}, kStore, int64_t{0}, "c"}),
                  "ValueError", "no shape heap");
  // A float tensor is not a heap.
  EXPECT_VM_ERROR(Call("vm.builtin.make_shape", {x, int64_t{1}, kLoadShape, int64_t{0}}), "TypeError",
                  "int64");
  EXPECT_VM_ERROR(Call("vm.builtin.make_shape", {heap, int64_t{1}, int64_t{5}, int64_t{0}}),
                  "ValueError", "unknown make_shape code 5");
  EXPECT_VM_ERROR(Call("vm.builtin.make_shape", {heap, int64_t{1}, kLoadShape, int64_t{2}}),
                  "IndexError", "slot 2");
  EXPECT_VM_ERROR(Call("vm.builtin.make_shape", {heap, int64_t{-3}}), "TypeError", "ndim -3");
  EXPECT_VM_ERROR(Call("vm.builtin.make_shape", {heap, 1.5}), "TypeError", "ndim must be an int");
}

}  // namespace
