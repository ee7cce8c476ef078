// TE -> PrimFunc -> LLVM IR text (the text is checked here; running it is the Python tests' job).
#include <gtest/gtest.h>
#include <tvm/ffi/function.h>
#include <tvm/tir/ir.h>

namespace tvm {
namespace {

ffi::Function Global(const char* name) { return ffi::Function::GetGlobalRequired(name); }

TEST(Codegen, ElementwiseAndReduce) {
  Var i("i", Int(32)), k("k", Int(32));
  Buffer a = MakeBuffer(Var(), Float(32), {IntImm(Int(32), 4), IntImm(Int(32), 8)}, {}, "A");
  Buffer c = MakeBuffer(Var(), Float(32), {IntImm(Int(32), 4)}, {}, "C");
  auto iv = [](Var v, int64_t ext, int64_t kind) {
    return Global("tir.IterVar")(v, IntImm(Int(32), 0), IntImm(Int(32), ext), kind).cast<IterVar>();
  };
  TETensor ta = Global("te.Tensor")(a, Array<IterVar>{}, PrimExpr(), Array<ObjectRef>{}).cast<TETensor>();
  PrimExpr red = Global("tir.Reduce")("sum", MakeBufferLoad(a, {i, k}), Array<IterVar>{iv(k, 8, 2)},
                                      IntImm(Bool(), 1))
                     .cast<PrimExpr>();
  TETensor tc = Global("te.Tensor")(c, Array<IterVar>{iv(i, 4, 0)}, red, Array<ObjectRef>{ta})
                    .cast<TETensor>();
  PrimFunc f = Global("te.CreatePrimFunc")(Array<TETensor>{ta, tc}, "rowsum").cast<PrimFunc>();
  std::string text = Global("ir.AsText")(f).cast<std::string>();
  EXPECT_NE(text.find("def rowsum(A: T.Buffer((4, 8), \"float32\")"), std::string::npos) << text;
  EXPECT_NE(text.find("with T.block(\"C\")"), std::string::npos) << text;
  EXPECT_NE(text.find("C[v_i] = (C[v_i] + A[v_i, v_k])"), std::string::npos) << text;

  auto module_of = [](PrimFunc fn) {
    Map<String, PrimFunc> funcs;
    funcs.Set(String("rowsum"), fn);
    return Global("ir.IRModule")(funcs).cast<IRModule>();
  };
  // Blocks must be lowered before codegen: a clear error, not a crash.
  EXPECT_THROW(Global("codegen.LLVMText")(module_of(f), "x86_64-unknown-linux-gnu", ""), ffi::Error);
  for (const char* pass : {"LowerInitBlock", "ConvertBlocksToOpaque", "CompactBufferAllocation",
                           "LowerOpaqueBlock", "Simplify", "FlattenBuffer"}) {
    f = Global((std::string("tir.transform.") + pass).c_str())(f).cast<PrimFunc>();
  }
  f = Global("tir.transform.MakePackedAPI")(f, "rowsum").cast<PrimFunc>();
  f = Global("tir.transform.LowerTVMBuiltin")(f).cast<PrimFunc>();
  IRModule mod = module_of(f);
  std::string ll = Global("codegen.LLVMText")(mod, "x86_64-unknown-linux-gnu", "").cast<std::string>();
  EXPECT_NE(ll.find("define i32 @__tvm_ffi_rowsum(ptr %self, ptr %args, i32 %num_args, ptr %result)"),
            std::string::npos);
  EXPECT_NE(ll.find("rowsum: expected 2 arguments"), std::string::npos);
  // Tensor arguments go through the module's one checker (its messages are formatted when
  // a check fails: tests/compiler_py/test_compile.py runs them).
  EXPECT_NE(ll.find("define internal ptr @__tvm_check_tensor_arg("), std::string::npos);
  EXPECT_NE(ll.find("call ptr @__tvm_check_tensor_arg("), std::string::npos);
  EXPECT_NE(ll.find("rowsum: argument 0 (A)"), std::string::npos);
  EXPECT_NE(ll.find("%s: dtype is expected to be %s"), std::string::npos);
  EXPECT_NE(ll.find("fadd float"), std::string::npos);
  // A part of a module compiled in pieces defines the checker for the others (weak_odr hidden)
  // or declares it; any other mode is refused.
  auto part = [&](const char* checker) {
    return Global("codegen.LLVMTextPart")(mod, "x86_64-unknown-linux-gnu", "", checker).cast<std::string>();
  };
  std::string defines = part("define"), declares = part("declare");
  EXPECT_NE(defines.find("define weak_odr hidden ptr @__tvm_check_tensor_arg("), std::string::npos);
  EXPECT_EQ(declares.find("define weak_odr hidden ptr @__tvm_check_tensor_arg("), std::string::npos);
  EXPECT_NE(declares.find("declare hidden ptr @__tvm_check_tensor_arg("), std::string::npos);
  EXPECT_NE(declares.find("call ptr @__tvm_check_tensor_arg("), std::string::npos);
  EXPECT_EQ(declares.find("%s: dtype is expected to be %s"), std::string::npos);  // its messages stay in the definer
  EXPECT_THROW(part("internal"), ffi::Error);
}

}  // namespace
}  // namespace tvm
