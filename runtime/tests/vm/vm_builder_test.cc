// The builder API and the interpreter's control flow: loops (Goto/If with patched forward
// jumps), bytecode recursion, forward references, closures, every constant kind through
// save/load, listings, builder misuse, and one VM per thread sharing an executable.
#include <thread>

#include "vm_test_util.h"

namespace {
using namespace tvm_vm_test;
using rvm::Arg;
using rvm::Index;

Arg R(int64_t r) { return Arg::Register(r); }
Arg I(int64_t v) { return Arg::Immediate(v); }

class VMBuilder : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto reg = [](const char* name, auto f) {
      ffi::Function::SetGlobal(name, ffi::Function::FromTyped(f, name), /*allow_override=*/true);
    };
    reg("test.vm.add", [](int64_t a, int64_t b) { return a + b; });
    reg("test.vm.mul", [](int64_t a, int64_t b) { return a * b; });
    reg("test.vm.lt", [](int64_t a, int64_t b) { return a < b; });
  }
};

/*! sum_to(n) = 0 + 1 + ... + (n - 1), as a loop. */
void EmitSumTo(rvm::ExecBuilder* b) {
  b->EmitFunction("sum_to", 1, {"n"});
  b->EmitCall("vm.builtin.identity", {I(0)}, 1);  // i
  b->EmitCall("vm.builtin.identity", {I(0)}, 2);  // s
  Index loop = b->EmitCall("test.vm.lt", {R(1), R(0)}, 3);
  Index branch = b->EmitIf(3, 0);  // patched once the exit is known
  b->EmitCall("test.vm.add", {R(2), R(1)}, 2);
  b->EmitCall("test.vm.add", {R(1), I(1)}, 1);
  Index back = b->EmitGoto(0);
  b->PatchJump(back, loop - back);
  b->PatchJump(branch, b->NumInstructions() - branch);
  b->EmitRet(2);
  b->EndFunction("sum_to");
}

/*! fact(n) = n < 2 ? 1 : n * fact(n - 1), recursing through bytecode calls. */
void EmitFact(rvm::ExecBuilder* b) {
  b->EmitFunction("fact", 1, {"n"});
  b->EmitCall("test.vm.lt", {R(0), I(2)}, 1);
  Index branch = b->EmitIf(1, 0);
  b->EmitCall("vm.builtin.identity", {I(1)}, 2);
  b->EmitRet(2);
  b->PatchJump(branch, b->NumInstructions() - branch);
  b->EmitCall("test.vm.add", {R(0), I(-1)}, 3);
  b->EmitCall("fact", {R(3)}, 4);
  b->EmitCall("test.vm.mul", {R(0), R(4)}, 5);
  b->EmitRet(5);
  b->EndFunction("fact");
}

TEST_F(VMBuilder, LoopsBranchesAndRecursion) {
  rvm::ExecBuilder b;
  // `main` calls `fact` before it is emitted: the name is declared on first use.
  b.EmitFunction("main", 1, {"n"});
  b.EmitCall("fact", {R(0)}, 1);
  b.EmitCall("sum_to", {R(0)}, 2);
  b.EmitCall("vm.builtin.make_tuple", {R(1), R(2)}, 3);
  b.EmitRet(3);
  b.EndFunction("main");
  EmitSumTo(&b);
  EmitFact(&b);
  ffi::Module exec = b.Get();
  for (ffi::Module e : {exec, rvm::LoadExecutable(rvm::SaveExecutable(exec))}) {
    rvm::VirtualMachine vm = rvm::VirtualMachine::Create(e, kCPU);
    for (int64_t n : {0, 1, 2, 5, 10, 20}) {
      int64_t fact = 1;
      for (int64_t k = 2; k <= n; ++k) fact *= k;
      ffi::Array<ffi::Any> out = vm["main"](n).cast<ffi::Array<ffi::Any>>();
      EXPECT_EQ(out[0].cast<int64_t>(), fact) << n;
      EXPECT_EQ(out[1].cast<int64_t>(), n * (n - 1) / 2) << n;
    }
    EXPECT_EQ(vm["sum_to"](int64_t{100000}).cast<int64_t>(), int64_t{100000} * 99999 / 2);
  }
  std::string text = exec->GetFunction("as_text").value()().cast<std::string>();
  EXPECT_NE(text.find("@sum_to(%0:n)"), std::string::npos) << text;
  EXPECT_NE(text.find("%2 = call @test.vm.add(%2, %1)"), std::string::npos) << text;
  EXPECT_NE(text.find("goto -4  ; -> 2"), std::string::npos) << text;
  EXPECT_NE(text.find("extern @test.vm.lt"), std::string::npos) << text;
  EXPECT_EQ(exec->GetFunction("stats").value()().cast<std::string>(),
            "8 functions (3 bytecode, 5 packed), 0 constants, 20 instructions (88 words)");
}

TEST_F(VMBuilder, EveryConstantKindSurvivesSaveAndLoad) {
  rvm::ExecBuilder b;
  ffi::Tensor t = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<ffi::Any> values = {
      ffi::Any(), true, int64_t{-7}, 2.5, ffi::String("a longer string than seven bytes"),
      ffi::String("short"), DLDataType{kDLBfloat, 16, 4}, DLDevice{kDLCUDA, 3},
      ffi::Shape({4, 0, 2}), t,
      ffi::Array<ffi::Any>{int64_t{1}, ffi::Array<ffi::Any>{ffi::String("x"), ffi::Shape({1})}}};
  std::vector<Arg> args;
  for (const ffi::Any& v : values) args.push_back(b.ConvertConstant(v));
  // Scalars and strings are pooled once.
  EXPECT_EQ(b.ConvertConstant(int64_t{-7}).word(), args[2].word());
  EXPECT_EQ(b.ConvertConstant(ffi::String("short")).word(), args[5].word());
  b.EmitFunction("consts", 0);
  b.EmitCall("vm.builtin.make_tuple", args, 0);
  b.EmitRet(0);
  b.EndFunction("consts");
  ffi::Module exec = rvm::LoadExecutable(rvm::SaveExecutable(b.Get()));
  ffi::Array<ffi::Any> out =
      rvm::VirtualMachine::Create(exec, kCPU)["consts"]().cast<ffi::Array<ffi::Any>>();
  ASSERT_EQ(out.size(), values.size());
  for (size_t i = 0; i < 8; ++i) EXPECT_TRUE(out[i] == values[i]) << i;  // value types
  EXPECT_EQ(out[8].cast<ffi::Shape>(), values[8].cast<ffi::Shape>());
  ffi::Tensor t2 = out[9].cast<ffi::Tensor>();
  EXPECT_EQ(ShapeOf(t2), ShapeOf(t));
  EXPECT_EQ(Values(t2), Values(t));
  ffi::Array<ffi::Any> nested = out[10].cast<ffi::Array<ffi::Any>>();
  EXPECT_EQ(nested[0].cast<int64_t>(), 1);
  EXPECT_EQ(nested[1].cast<ffi::Array<ffi::Any>>()[0].cast<std::string>(), "x");
  EXPECT_EQ(nested[1].cast<ffi::Array<ffi::Any>>()[1].cast<ffi::Shape>(), ffi::Shape({1}));
  std::string text = exec->GetFunction("as_text").value()().cast<std::string>();
  EXPECT_NE(text.find("Tensor(float32[2, 3])"), std::string::npos) << text;
  EXPECT_NE(text.find("Shape(4, 0, 2)"), std::string::npos) << text;
}

TEST_F(VMBuilder, ClosuresOutliveTheirModuleReferences) {
  rvm::ExecBuilder b;
  EmitSumTo(&b);
  b.EmitFunction("get", 0);
  b.EmitCall("vm.builtin.identity", {b.Func("sum_to")}, 0);
  b.EmitRet(0);
  b.EndFunction("get");
  b.EmitFunction("apply", 2, {"f", "x"});
  b.EmitCall("vm.builtin.invoke_closure", {R(0), R(1)}, 2);
  b.EmitRet(2);
  b.EndFunction("apply");
  ffi::Function sum_to, apply;
  {
    rvm::VirtualMachine vm = rvm::VirtualMachine::Create(b.Get(), kCPU);
    sum_to = vm["get"]().cast<ffi::Function>();
    apply = vm["apply"];
  }  // only the functions keep the VM alive now
  EXPECT_EQ(sum_to(int64_t{5}).cast<int64_t>(), 10);
  EXPECT_EQ(apply(sum_to, int64_t{4}).cast<int64_t>(), 6);
  ffi::Function host = ffi::Function::FromTyped([](int64_t x) { return x * 3; });
  EXPECT_EQ(apply(host, int64_t{4}).cast<int64_t>(), 12);
}

TEST_F(VMBuilder, MisuseIsReportedAtBuildTime) {
  {
    rvm::ExecBuilder b;
    EXPECT_VM_ERROR(b.EmitCall("f", {}), "ValueError", "no function is open");
    EXPECT_VM_ERROR(b.EmitRet(0), "ValueError", "no function is open");
    EXPECT_VM_ERROR(b.EmitFunction("f", 2, {"only_one"}), "ValueError", "parameter names");
    b.EmitFunction("f", 1);
    EXPECT_VM_ERROR(b.EmitFunction("g", 0), "ValueError", "`f` is still open");
    EXPECT_VM_ERROR(b.Get(), "ValueError", "still open");
    EXPECT_VM_ERROR(b.EndFunction("g"), "ValueError", "open function is `f`");
    EXPECT_VM_ERROR(b.EndFunction("f"), "ValueError", "has no instructions");
    EXPECT_VM_ERROR(b.EmitCall("h", {R(-3)}), "ValueError", "invalid register -3");
    EXPECT_VM_ERROR(b.EmitCall("h", {}, rvm::kVMRegister), "ValueError", "invalid register");
    EXPECT_VM_ERROR(b.EmitCall("h", {Arg::ConstIdx(0)}), "ValueError", "constant index 0");
    EXPECT_VM_ERROR(b.EmitCall("h", {Arg::FuncIdx(99)}), "ValueError", "function index 99");
    EXPECT_VM_ERROR(b.EmitCall("h", {Arg(int64_t{5} << 56)}), "ValueError", "operand kind 5");
    EXPECT_VM_ERROR(b.EmitIf(rvm::kVoidRegister, 2), "ValueError", "invalid register");
    EXPECT_VM_ERROR(b.PatchJump(0, 1), "ValueError", "not in function");
    b.EmitRet(0);
    EXPECT_VM_ERROR(b.PatchJump(0, 1), "ValueError", "not a Goto or If");
    b.EndFunction("f");
    EXPECT_VM_ERROR(b.EmitFunction("f", 1), "ValueError", "already defined");
    EXPECT_VM_ERROR(b.ConvertConstant(ffi::Function::FromTyped([]() {})), "TypeError",
                    "cannot be a `ffi.Function`");
    EXPECT_NO_THROW(b.Get());
  }
  {
    rvm::ExecBuilder b;  // semantic errors surface in Get()'s validation
    b.EmitFunction("f", 1);
    b.EmitGoto(5);
    b.EndFunction("f");
    EXPECT_VM_ERROR(b.Get(), "ValueError", "function `f` instruction 0: jump offset 5");
  }
  {
    rvm::ExecBuilder b;
    b.EmitFunction("f", 1);
    b.EmitCall("g", {R(0)}, 1);  // g takes 2
    b.EmitRet(1);
    b.EndFunction("f");
    b.EmitFunction("g", 2);
    b.EmitRet(0);
    b.EndFunction("g");
    EXPECT_VM_ERROR(b.Get(), "ValueError", "calls `g` with 1 arguments, it takes 2");
  }
  {
    rvm::ExecBuilder b;
    b.EmitFunction("f", 0);
    b.EmitCall("g", {});
    b.EndFunction("f");
    EXPECT_VM_ERROR(b.Get(), "ValueError", "falls off the end");
  }
  EXPECT_EQ(G("vm.builder.Arg")(int64_t{1}, int64_t{-1}).cast<int64_t>(),
            Arg::Immediate(-1).word());
  EXPECT_EQ(Arg(G("vm.builder.Arg")(int64_t{2}, int64_t{5}).cast<int64_t>()).value(), 5);
  EXPECT_VM_ERROR(G("vm.builder.Arg")(int64_t{4}, int64_t{0}), "ValueError", "kind");
  EXPECT_VM_ERROR(Arg::Immediate(int64_t{1} << 60), "ValueError", "56 bits");
  EXPECT_VM_ERROR(G("vm.builder.EmitRet")(ffi::Shape({1}), int64_t{0}), "TypeError",
                  "runtime.vm.ExecBuilder");
}

TEST_F(VMBuilder, OneVMPerThreadSharingAnExecutable) {
  rvm::ExecBuilder b;
  EmitSumTo(&b);
  EmitFact(&b);
  ffi::Module exec = b.Get();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      rvm::VirtualMachine vm = rvm::VirtualMachine::Create(exec, kCPU);
      for (int64_t n = 0; n < 300; ++n) {
        if (vm["sum_to"](n).cast<int64_t>() != n * (n - 1) / 2) ++failures[t];
        if (vm["fact"](int64_t{5}).cast<int64_t>() != 120) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

}  // namespace
