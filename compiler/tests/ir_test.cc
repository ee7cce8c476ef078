// TIR nodes: construction and dtype checks, reflection, printing, structural equal/hash.
#include <gtest/gtest.h>
#include <tvm/ffi/function.h>
#include <tvm/ir/reflection.h>
#include <tvm/tir/ir.h>

namespace tvm {
namespace {

ffi::Function Global(const char* name) { return ffi::Function::GetGlobalRequired(name); }

TEST(TIR, TypeKeysAndFields) {
  Var x("x", Int(32));
  PrimExpr e = MakeBinary("tir.Add", x, IntImm(Int(32), 1));
  EXPECT_EQ(e.GetTypeKey(), "tir.Add");
  EXPECT_TRUE(e.as<PrimExprNode>() != nullptr);
  const std::vector<ir::FieldEntry>* f = ir::GetFields(e.type_index());
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->size(), 3u);
  EXPECT_EQ((*f)[1].name, "a");
  EXPECT_TRUE(ir::ReadField(e.get(), (*f)[1]).cast<PrimExpr>().same_as(x));
}

TEST(TIR, DtypeChecks) {
  Var x("x", Int(32));
  Var y("y", Float(32));
  EXPECT_THROW(MakeBinary("tir.Add", x, y), ffi::Error);
  EXPECT_TRUE(MakeBinary("tir.LT", x, x).dtype() == Bool());
  EXPECT_THROW(MakeNot(x), ffi::Error);
}

TEST(TIR, Printer) {
  Var x("x", Int(32));
  PrimExpr e = MakeBinary("tir.FloorDiv", MakeBinary("tir.Mul", x, IntImm(Int(32), 4)),
                          IntImm(Int(32), 3));
  std::string text = Global("ir.AsText")(e).cast<std::string>();
  EXPECT_EQ(text, "((x * 4) // 3)");
}

TEST(TIR, StructuralEqualBindsDefinitions) {
  auto make = [](const char* name) {
    Var i(name, Int(32));
    Buffer b = MakeBuffer(Var(), Float(32), {IntImm(Int(32), 8)}, {}, "A");
    Stmt s = MakeFor(i, IntImm(Int(32), 0), IntImm(Int(32), 8), 0,
                     MakeBufferStore(b, FloatImm(Float(32), 1.0), {i}));
    Map<Var, Buffer> bmap;
    bmap.Set(b->data, b);
    return MakePrimFunc({b->data}, bmap, s, {});
  };
  PrimFunc f = make("i"), g = make("j");
  ffi::Function eq = Global("ir.StructuralEqual");
  ffi::Function hash = Global("ir.StructuralHash");
  EXPECT_TRUE(eq(f, g, false).cast<bool>());
  EXPECT_EQ(hash(f, false).cast<int64_t>(), hash(g, false).cast<int64_t>());
  // Free variables: equal only to themselves unless map_free_vars.
  Var a("a", Int(32)), b("b", Int(32));
  EXPECT_FALSE(eq(a, b, false).cast<bool>());
  EXPECT_TRUE(eq(a, b, true).cast<bool>());
  EXPECT_TRUE(eq(MakeBinary("tir.Add", a, a), MakeBinary("tir.Add", b, b), true).cast<bool>());
  EXPECT_FALSE(eq(MakeBinary("tir.Add", a, a), MakeBinary("tir.Add", a, b), true).cast<bool>());
  EXPECT_FALSE(eq(IntImm(Int(32), 1), IntImm(Int(64), 1), false).cast<bool>());
}

}  // namespace
}  // namespace tvm
