// Arithmetic analysis and passes through their C++ entry points.
#include <gtest/gtest.h>
#include <tvm/arith/analyzer.h>
#include <tvm/ffi/function.h>
#include <tvm/ir/structural.h>
#include <tvm/tir/ir.h>

namespace tvm {
namespace {

PrimExpr C(int64_t v) { return IntImm(Int(32), v); }
PrimExpr Add(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Add", a, b); }
PrimExpr Mul(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Mul", a, b); }

TEST(Arith, BoundsAndModular) {
  Var i("i", Int(32)), j("j", Int(32));
  arith::VarBounds vb{{i.get(), {0, 15}}, {j.get(), {0, 3}}};
  arith::ConstIntBound b = arith::EvalConstIntBound(Add(Mul(i, C(4)), j), vb);
  EXPECT_EQ(b.min_value, 0);
  EXPECT_EQ(b.max_value, 63);
  arith::ModularSet m = arith::EvalModularSet(Add(Mul(i, C(8)), C(3)), vb);
  EXPECT_EQ(m.coeff, 8);
  EXPECT_EQ(m.base, 3);
}

TEST(Arith, Simplify) {
  Var i("i", Int(32)), j("j", Int(32));
  arith::VarBounds vb{{i.get(), {0, 15}}, {j.get(), {0, 3}}};
  PrimExpr e = MakeBinary("tir.FloorDiv", Add(Mul(i, C(4)), j), C(4));
  EXPECT_TRUE(arith::Simplify(e, vb).same_as(i));
  PrimExpr f = MakeBinary("tir.Sub", Add(i, C(3)), i);
  PrimExpr fs = arith::Simplify(f, {});
  const int64_t* v = AsConstInt(fs);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(*v, 3);
  // int32 folding wraps like the generated code.
  PrimExpr ws = arith::Simplify(Add(C(2147483647), C(1)), {});
  const int64_t* w = AsConstInt(ws);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(*w, -2147483648LL);
}

TEST(IR, JsonRoundTrip) {
  Var x("x", Int(64));
  PrimExpr e = MakeSelect(MakeBinary("tir.LT", x, IntImm(Int(64), 3)), MakeCast(Int(64), FloatImm(Float(32), 1.5)), x);
  ffi::Function save = ffi::Function::GetGlobalRequired("ir.SaveJSON");
  ffi::Function load = ffi::Function::GetGlobalRequired("ir.LoadJSON");
  std::string text = save(e).cast<std::string>();
  PrimExpr back = load(text).cast<PrimExpr>();
  EXPECT_FALSE(back.same_as(e));
  EXPECT_TRUE(StructuralEqual(back, e, true));
  EXPECT_FALSE(StructuralEqual(back, e, false));  // the free var x was recreated
  EXPECT_EQ(save(back).cast<std::string>(), text);
}

}  // namespace
}  // namespace tvm
