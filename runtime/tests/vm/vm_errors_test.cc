// Acceptance: errors raised inside kernels keep their kind through the VM and gain VM frames
// in the traceback; wrong argument counts or types raise TypeError/ValueError naming the
// function; missing functions fail at VM creation; a VM stays usable after any error.
#include "mlp_program.h"
#include "vm_test_util.h"

namespace {
using namespace tvm_vm_test;
using rvm::Arg;

class VMErrors : public ::testing::Test {
 protected:
  static ffi::Module Lib() {
    return ffi::Module::LoadFromFile(Runfile("runtime/tests/vm/mlp_kernels.so"));
  }
  static rvm::VirtualMachine Mlp() {
    return rvm::VirtualMachine::Create(WithImport(BuildMlpExecutable(), Lib()), kCPU);
  }
  /*! outer(kind, msg) calls inner(kind, msg), which calls the library's `fail`. */
  static rvm::VirtualMachine Failing() {
    rvm::ExecBuilder b;
    b.EmitFunction("inner", 2, {"kind", "msg"});
    b.EmitCall("fail", {Arg::Register(0), Arg::Register(1)});
    b.EmitRet(rvm::kVoidRegister);
    b.EndFunction("inner");
    b.EmitFunction("outer", 2, {"kind", "msg"});
    b.EmitCall("vm.builtin.null_value", {}, 2);
    b.EmitCall("inner", {Arg::Register(0), Arg::Register(1)}, 2);
    b.EmitRet(2);
    b.EndFunction("outer");
    return rvm::VirtualMachine::Create(WithImport(b.Get(), Lib()), kCPU);
  }
};

TEST_F(VMErrors, KernelErrorsKeepTheirKindAndGainVMFrames) {
  rvm::VirtualMachine vm = Failing();
  for (const char* kind : {"ValueError", "TypeError", "IndexError", "RuntimeError", "MyError"}) {
    try {
      vm["outer"](kind, "boom");
      ADD_FAILURE() << "no error";
    } catch (const ffi::Error& e) {
      EXPECT_EQ(e.kind(), kind);
      EXPECT_EQ(e.message(), "boom");
      // Oldest frame first: outer called inner at instruction 1, inner called fail at 0.
      std::string text = e.FullMessage();
      size_t outer = text.find("line 1, in outer (call @inner)");
      size_t inner = text.find("line 0, in inner (call @fail)");
      EXPECT_NE(outer, std::string::npos) << text;
      EXPECT_NE(inner, std::string::npos) << text;
      EXPECT_LT(outer, inner) << text;
    }
  }
  // The frames were unwound: the same VM keeps working.
  EXPECT_VM_ERROR(vm["outer"]("ValueError", "again"), "ValueError", "again");
}

TEST_F(VMErrors, KernelArgumentErrors) {
  rvm::ExecBuilder b;
  b.EmitFunction("main", 3);
  b.EmitCall("dense", {Arg::Register(0), Arg::Register(1), Arg::Register(2)});
  b.EmitRet(rvm::kVoidRegister);
  b.EndFunction("main");
  rvm::VirtualMachine vm = rvm::VirtualMachine::Create(WithImport(b.Get(), Lib()), kCPU);
  ffi::Tensor a = F32({2, 3}, std::vector<float>(6, 1));
  ffi::Tensor w = F32({3, 4}, std::vector<float>(12, 1));
  ffi::Tensor out = F32({2, 4}, std::vector<float>(8, 0));
  EXPECT_NO_THROW(vm["main"](a, w, out));
  EXPECT_EQ(Values(out), std::vector<float>(8, 3));
  EXPECT_VM_ERROR(vm["main"](int64_t{1}, w, out), "TypeError", "dense");
  EXPECT_VM_ERROR(vm["main"](a, a, out), "ValueError", "dense: shape mismatch");
}

TEST_F(VMErrors, WrongArgumentCountNamesTheFunction) {
  rvm::VirtualMachine vm = Mlp();
  ffi::Tensor x = F32({1, 1}, {1});
  EXPECT_VM_ERROR(vm["main"](x), "TypeError",
                  "VM function `main(x, w1, b1, w2, b2)` takes 5 arguments but 1 were given");
  EXPECT_VM_ERROR(vm["main"](), "TypeError", "but 0 were given");
  EXPECT_VM_ERROR(vm["dense_bias"](x, x, x, x), "TypeError", "`dense_bias(x, w, b)` takes 3");
}

TEST_F(VMErrors, WrongArgumentTypesNameTheFunctionAndArgument) {
  rvm::VirtualMachine vm = Mlp();
  ffi::Tensor x = F32({2, 3}, std::vector<float>(6, 1));
  ffi::Tensor w1 = F32({3, 4}, std::vector<float>(12, 1));
  ffi::Tensor b1 = F32({4}, std::vector<float>(4, 1));
  ffi::Tensor w2 = F32({4, 2}, std::vector<float>(8, 1));
  ffi::Tensor b2 = F32({2}, std::vector<float>(2, 1));
  EXPECT_NO_THROW(vm["main"](x, w1, b1, w2, b2));
  EXPECT_VM_ERROR(vm["main"](int64_t{3}, w1, b1, w2, b2), "TypeError",
                  "main: argument x: expected a Tensor, got `int`");
  EXPECT_VM_ERROR(vm["main"](x, "w1", b1, w2, b2), "TypeError",
                  "main: argument w1: expected a Tensor, got `");
  EXPECT_VM_ERROR(vm["main"](x, w1, w1, w2, b2), "ValueError",
                  "main: argument b1: expected a Tensor with 1 dimensions, got 2");
  ffi::Tensor x64 = tvm::runtime::Empty({2, 3}, DLDataType{kDLFloat, 64, 1}, kCPU);
  EXPECT_VM_ERROR(vm["main"](x64, w1, b1, w2, b2), "ValueError",
                  "main: argument x: expected a Tensor of dtype float32, got float64");
  // Shapes that disagree with each other are caught by match_shape, named by its context.
  EXPECT_VM_ERROR(vm["main"](x, w2, b1, w2, b2), "ValueError",
                  "dense_bias: x: expected shape [?, 4], got [2, 3]");
  EXPECT_VM_ERROR(vm["main"](x, w1, b2, w2, b2), "ValueError",
                  "dense_bias: b: expected shape [4], got [2]");
  EXPECT_NO_THROW(vm["main"](x, w1, b1, w2, b2));
}

TEST_F(VMErrors, MissingFunctionsFailAtCreationNamingThem) {
  // The kernels are not imported and not registered globally.
  EXPECT_VM_ERROR(rvm::VirtualMachine::Create(BuildMlpExecutable(), kCPU), "RuntimeError",
                  "cannot find function `dense`");
  rvm::ExecBuilder b;
  b.EmitFunction("main", 0);
  b.EmitCall("no.such.function", {});
  b.EmitRet(rvm::kVoidRegister);
  b.EndFunction("main");
  EXPECT_VM_ERROR(rvm::VirtualMachine::Create(b.Get(), kCPU), "RuntimeError",
                  "`no.such.function`");
}

TEST_F(VMErrors, InitializationErrors) {
  ffi::Module exec = WithImport(BuildMlpExecutable(), Lib());
  ffi::Module raw = exec->GetFunction("vm_load_executable").value()().cast<ffi::Module>();
  ffi::Tensor x = F32({1, 1}, {1});
  EXPECT_VM_ERROR(raw->GetFunction("main").value()(x, x, x, x, x), "RuntimeError",
                  "not initialized");
  ffi::Function init = raw->GetFunction("vm_initialization").value();
  EXPECT_VM_ERROR(init(int64_t{kDLCPU}, int64_t{0}), "TypeError", "triples");
  EXPECT_VM_ERROR(init(int64_t{kDLCPU}, int64_t{0}, int64_t{3}), "ValueError", "allocator kind");
  EXPECT_VM_ERROR(init(int64_t{kDLCPU}, int64_t{0}, "fancy"), "ValueError", "allocator kind");
  EXPECT_VM_ERROR(G("vm.VirtualMachine")(ffi::Module(Lib()), int64_t{1}, int64_t{0}, int64_t{1}),
                  "TypeError", "relax.VMExecutable");
  EXPECT_EQ(raw->GetFunction("no_such_function"), std::nullopt);
}

TEST_F(VMErrors, BadConditionAndBadDeviceIndex) {
  rvm::ExecBuilder b;
  b.EmitFunction("cond", 1);
  b.EmitIf(0, 2);
  b.EmitRet(0);
  b.EmitRet(0);
  b.EndFunction("cond");
  b.EmitFunction("alloc", 1);
  b.EmitCall("vm.builtin.empty",
             {Arg::VMContext(), b.ConvertConstant(ffi::Shape({2})),
              b.ConvertConstant(kF32), Arg::Register(0)}, 1);
  b.EmitRet(1);
  b.EndFunction("alloc");
  rvm::VirtualMachine vm = rvm::VirtualMachine::Create(b.Get(), kCPU);
  EXPECT_EQ(vm["cond"](int64_t{1}).cast<int64_t>(), 1);
  EXPECT_VM_ERROR(vm["cond"]("yes"), "TypeError", "read_if_cond");
  EXPECT_NO_THROW(vm["alloc"](int64_t{0}));
  EXPECT_NO_THROW(vm["alloc"](int64_t{-1}));  // the host
  EXPECT_VM_ERROR(vm["alloc"](int64_t{1}), "ValueError", "device index 1 out of range");
}

TEST_F(VMErrors, UnboundedRecursionIsAnErrorNotACrash) {
  rvm::ExecBuilder b;
  // Bytecode recursion: frames on the VM's own stack.
  b.EmitFunction("forever", 1);
  b.EmitCall("forever", {Arg::Register(0)}, 1);
  b.EmitRet(1);
  b.EndFunction("forever");
  // Recursion through a packed function (invoke_closure re-enters the VM): C++ stack.
  b.EmitFunction("reenter", 1);
  b.EmitCall("vm.builtin.invoke_closure", {b.Func("reenter"), Arg::Register(0)}, 1);
  b.EmitRet(1);
  b.EndFunction("reenter");
  rvm::VirtualMachine vm = rvm::VirtualMachine::Create(b.Get(), kCPU);
  EXPECT_VM_ERROR(vm["forever"](int64_t{1}), "RuntimeError", "stack overflow");
  EXPECT_VM_ERROR(vm["reenter"](int64_t{1}), "RuntimeError", "re-entered");
  EXPECT_VM_ERROR(vm["forever"](int64_t{1}), "RuntimeError", "stack overflow");
}

}  // namespace
