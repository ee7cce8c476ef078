// The hand-assembled two-layer MLP: main(x, w1, b1, w2, b2) = dense_bias(relu(dense_bias(
// x, w1, b1)), w2, b2), where dense_bias is a bytecode function too. Shared by the tests
// and by the tool that embeds the same executable into mlp_bundle.so.
#ifndef TVM_RUNTIME_TESTS_VM_MLP_PROGRAM_H_
#define TVM_RUNTIME_TESTS_VM_MLP_PROGRAM_H_

#include <tvm/runtime/vm/builder.h>

namespace tvm_vm_test {

inline tvm::ffi::Module BuildMlpExecutable() {
  using tvm::runtime::vm::Arg;
  using tvm::runtime::vm::ExecBuilder;
  auto R = [](int64_t r) { return Arg::Register(r); };
  auto I = [](int64_t v) { return Arg::Immediate(v); };
  const Arg vm = Arg::VMContext();
  const Arg none = Arg::Void();
  ExecBuilder b;
  const Arg f32 = b.ConvertConstant(DLDataType{kDLFloat, 32, 1});
  auto ctx = [&b](const char* text) { return b.ConvertConstant(tvm::ffi::String(text)); };

  // dense_bias(x[batch, in], w[in, out], b[out]) -> [batch, out]
  b.EmitFunction("dense_bias", 3, {"x", "w", "b"});
  b.EmitCall("vm.builtin.shape_of", {R(0)}, 3);
  b.EmitCall("vm.builtin.tuple_getitem", {R(3), I(0)}, 4);  // batch
  b.EmitCall("vm.builtin.shape_of", {R(1)}, 5);
  b.EmitCall("vm.builtin.tuple_getitem", {R(5), I(0)}, 6);  // in
  b.EmitCall("vm.builtin.tuple_getitem", {R(5), I(1)}, 7);  // out
  b.EmitCall("vm.builtin.match_shape", {R(0), ctx("dense_bias: x"), none, R(6)});
  b.EmitCall("vm.builtin.match_shape", {R(2), ctx("dense_bias: b"), R(7)});
  b.EmitCall("vm.builtin.make_shape", {R(4), R(7)}, 8);
  // Explicit storage + view for the product, a direct allocation for the sum.
  b.EmitCall("vm.builtin.alloc_storage", {vm, R(8), I(0), f32}, 9);
  b.EmitCall("vm.builtin.alloc_tensor", {R(9), I(0), R(8), f32}, 10);
  b.EmitCall("dense", {R(0), R(1), R(10)});
  b.EmitCall("vm.builtin.empty", {vm, R(8), f32, I(0)}, 11);
  b.EmitCall("add_bias", {R(10), R(2), R(11)});
  b.EmitRet(11);
  b.EndFunction("dense_bias");

  b.EmitFunction("main", 5, {"x", "w1", "b1", "w2", "b2"});
  b.EmitCall("vm.builtin.check_tensor_info", {R(0), I(2), f32, ctx("main: argument x")});
  b.EmitCall("vm.builtin.check_tensor_info", {R(1), I(2), f32, ctx("main: argument w1")});
  b.EmitCall("vm.builtin.check_tensor_info", {R(2), I(1), f32, ctx("main: argument b1")});
  b.EmitCall("vm.builtin.check_tensor_info", {R(3), I(2), f32, ctx("main: argument w2")});
  b.EmitCall("vm.builtin.check_tensor_info", {R(4), I(1), f32, ctx("main: argument b2")});
  b.EmitCall("dense_bias", {R(0), R(1), R(2)}, 5);
  b.EmitCall("vm.builtin.shape_of", {R(5)}, 6);
  b.EmitCall("vm.builtin.empty", {vm, R(6), f32, I(0)}, 7);
  b.EmitCall("relu", {R(5), R(7)});
  b.EmitCall("vm.builtin.null_value", {}, 5);  // the hidden pre-activation is dead
  b.EmitCall("dense_bias", {R(7), R(3), R(4)}, 8);
  b.EmitRet(8);
  b.EndFunction("main");
  return b.Get();
}

}  // namespace tvm_vm_test
#endif  // TVM_RUNTIME_TESTS_VM_MLP_PROGRAM_H_
