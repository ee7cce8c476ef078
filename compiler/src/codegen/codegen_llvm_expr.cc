/*
 * CodeGenLLVM's expressions (codegen_llvm.h): arithmetic with TIR's semantics (floor
 * division and modulo, min/max as selects), casts, vectors, and math calls as LLVM
 * intrinsics or libm functions. Targets add intrinsics by overriding Call and Intrinsic.
 */
#include "codegen_llvm.h"
#include "vector_math.h"

namespace tvm {
namespace codegen {

Val CodeGenLLVM::Expr(const PrimExpr& e) {
  if (!e.defined()) TVM_FFI_THROW(ValueError) << "codegen: undefined expression";
  DataType t = e.dtype();
  if (auto* n = e.as<IntImmNode>()) {
    if (IsBool(t)) return Val{n->value ? "true" : "false", t};
    return Val{std::to_string(n->value), t};
  }
  if (auto* n = e.as<FloatImmNode>()) {
    RejectBF16(t, "a constant");
    return Val{FloatLiteral(t, n->value), t};
  }
  if (auto* n = e.as<VarNode>()) {
    auto it = vars_.find(n);
    if (it == vars_.end()) TVM_FFI_THROW(ValueError) << "codegen: variable " << std::string(n->name) << " is not bound";
    return it->second;
  }
  if (auto* n = e.as<AddNode>()) return Arith("add", "add", "fadd", n->a, n->b, t);
  if (auto* n = e.as<SubNode>()) return Arith("sub", "sub", "fsub", n->a, n->b, t);
  if (auto* n = e.as<MulNode>()) return Arith("mul", "mul", "fmul", n->a, n->b, t);
  if (auto* n = e.as<DivNode>()) return Arith("sdiv", "udiv", "fdiv", n->a, n->b, t);
  if (auto* n = e.as<ModNode>()) return Arith("srem", "urem", "frem", n->a, n->b, t);
  if (auto* n = e.as<FloorDivNode>()) {
    if (IsFloat(t)) {
      Val q = Arith("sdiv", "udiv", "fdiv", n->a, n->b, t);
      return Intrinsic("floor", q);
    }
    Val x = Expr(n->a), y = Expr(n->b);
    std::string ty = LLType(t);
    if (IsUInt(t) || NonNegativeByPositive(n->a, n->b)) return Emit("udiv " + ty + " " + x.v + ", " + y.v, t);
    Val q = Emit("sdiv " + ty + " " + x.v + ", " + y.v, t);
    Val r = Emit("srem " + ty + " " + x.v + ", " + y.v, t);
    Val zero = Const(t, 0);
    Val rnz = Emit("icmp ne " + ty + " " + r.v + ", " + zero.v, Bool(t.lanes));
    Val rneg = Emit("icmp slt " + ty + " " + r.v + ", " + zero.v, Bool(t.lanes));
    Val bneg = Emit("icmp slt " + ty + " " + y.v + ", " + zero.v, Bool(t.lanes));
    Val diff = Emit("xor " + LLType(Bool(t.lanes)) + " " + rneg.v + ", " + bneg.v, Bool(t.lanes));
    Val adj = Emit("and " + LLType(Bool(t.lanes)) + " " + rnz.v + ", " + diff.v, Bool(t.lanes));
    Val one = Const(t, 1);
    Val qm = Emit("sub " + ty + " " + q.v + ", " + one.v, t);
    return Emit("select " + LLType(Bool(t.lanes)) + " " + adj.v + ", " + ty + " " + qm.v + ", " + ty + " " + q.v, t);
  }
  if (auto* n = e.as<FloorModNode>()) {
    Val x = Expr(n->a), y = Expr(n->b);
    std::string ty = LLType(t);
    if (IsFloat(t)) {
      Val q = Emit("fdiv " + ty + " " + x.v + ", " + y.v, t);
      Val f = Intrinsic("floor", q);
      Val m = Emit("fmul " + ty + " " + f.v + ", " + y.v, t);
      return Emit("fsub " + ty + " " + x.v + ", " + m.v, t);
    }
    if (IsUInt(t) || NonNegativeByPositive(n->a, n->b)) return Emit("urem " + ty + " " + x.v + ", " + y.v, t);
    Val r = Emit("srem " + ty + " " + x.v + ", " + y.v, t);
    Val zero = Const(t, 0);
    std::string bt = LLType(Bool(t.lanes));
    Val rnz = Emit("icmp ne " + ty + " " + r.v + ", " + zero.v, Bool(t.lanes));
    Val rneg = Emit("icmp slt " + ty + " " + r.v + ", " + zero.v, Bool(t.lanes));
    Val bneg = Emit("icmp slt " + ty + " " + y.v + ", " + zero.v, Bool(t.lanes));
    Val diff = Emit("xor " + bt + " " + rneg.v + ", " + bneg.v, Bool(t.lanes));
    Val adj = Emit("and " + bt + " " + rnz.v + ", " + diff.v, Bool(t.lanes));
    Val rb = Emit("add " + ty + " " + r.v + ", " + y.v, t);
    return Emit("select " + bt + " " + adj.v + ", " + ty + " " + rb.v + ", " + ty + " " + r.v, t);
  }
  if (auto* n = e.as<MinNode>()) {
    Val x = Expr(n->a), y = Expr(n->b);
    RejectBF16(t, "min/max");
    Val c = Cmp0(IsFloat(t) ? "fcmp olt" : (IsUInt(t) || IsBool(t) ? "icmp ult" : "icmp slt"), x, y);
    return Emit("select " + LLType(c.t) + " " + c.v + ", " + LLType(t) + " " + x.v + ", " + LLType(t) + " " + y.v, t);
  }
  if (auto* n = e.as<MaxNode>()) {
    Val x = Expr(n->a), y = Expr(n->b);
    RejectBF16(t, "min/max");
    Val c = Cmp0(IsFloat(t) ? "fcmp ogt" : (IsUInt(t) || IsBool(t) ? "icmp ugt" : "icmp sgt"), x, y);
    return Emit("select " + LLType(c.t) + " " + c.v + ", " + LLType(t) + " " + x.v + ", " + LLType(t) + " " + y.v, t);
  }
  if (auto* n = e.as<EQNode>()) return Cmp("eq", "eq", "oeq", n->a, n->b, t);
  if (auto* n = e.as<NENode>()) return Cmp("ne", "ne", "une", n->a, n->b, t);
  if (auto* n = e.as<LTNode>()) return Cmp("slt", "ult", "olt", n->a, n->b, t);
  if (auto* n = e.as<LENode>()) return Cmp("sle", "ule", "ole", n->a, n->b, t);
  if (auto* n = e.as<GTNode>()) return Cmp("sgt", "ugt", "ogt", n->a, n->b, t);
  if (auto* n = e.as<GENode>()) return Cmp("sge", "uge", "oge", n->a, n->b, t);
  if (auto* n = e.as<AndNode>()) return Arith("and", "and", "and", n->a, n->b, t);
  if (auto* n = e.as<OrNode>()) return Arith("or", "or", "or", n->a, n->b, t);
  if (auto* n = e.as<NotNode>()) {
    Val x = Expr(n->a);
    return Emit("xor " + LLType(t) + " " + x.v + ", " + Const(t, 1).v, t);
  }
  if (auto* n = e.as<SelectNode>()) {
    Val c = Expr(n->condition), x = Expr(n->true_value), y = Expr(n->false_value);
    return Emit("select " + LLType(c.t) + " " + c.v + ", " + LLType(t) + " " + x.v + ", " + LLType(t) + " " + y.v, t);
  }
  if (auto* n = e.as<CastNode>()) return Cast(Expr(n->value), t);
  if (auto* n = e.as<LetNode>()) {
    vars_[n->var.get()] = Expr(n->value);
    BoundLetVar(n->var, n->value);
    return Expr(n->body);
  }
  if (auto* n = e.as<BufferLoadNode>()) {
    if (t.lanes > 1) return VectorLoad(n, t);
    std::string p = Address(n->buffer, n->indices);
    std::string mt = MemType(t);
    Val v = Emit("load " + mt + ", ptr " + p + ", align " + std::to_string(ElemAlign(n->buffer->dtype)) +
                     AliasTags(n->buffer), t);
    if (IsBool(t)) return Emit("trunc " + mt + " " + v.v + " to " + LLType(t), t);
    return v;
  }
  if (auto* n = e.as<RampNode>()) {
    Val base = Expr(n->base);
    Val vb = SplatValue(base, t);
    std::string et = LLType(ElementOf(t));
    std::string steps = "<";
    const int64_t* cs = AsConstInt(n->stride);
    for (int k = 0; k < t.lanes; ++k) {
      steps += (k ? ", " : "") + et + " " + std::to_string(cs ? *cs * k : k);
    }
    steps += ">";
    if (cs) return Emit("add " + LLType(t) + " " + vb.v + ", " + steps, t);
    Val vs = SplatValue(Expr(n->stride), t);
    Val m = Emit("mul " + LLType(t) + " " + vs.v + ", " + steps, t);
    return Emit("add " + LLType(t) + " " + vb.v + ", " + m.v, t);
  }
  if (auto* n = e.as<BroadcastNode>()) {
    Val x = Expr(n->value);
    std::string vt = LLType(t);
    Val ins = Emit("insertelement " + vt + " poison, " + LLType(x.t) + " " + x.v + ", i32 0", t);
    return Emit("shufflevector " + vt + " " + ins.v + ", " + vt + " poison, <" + std::to_string(t.lanes) +
                    " x i32> zeroinitializer", t);
  }
  if (auto* n = e.as<CallNode>()) return Call(n, t);
  TVM_FFI_THROW(ValueError) << "codegen: unsupported expression " << e.GetTypeKey();
}

Val CodeGenLLVM::Emit(const std::string& rhs, DataType t) {
  std::string v = Tmp();
  body_ << "  " << v << " = " << rhs << "\n";
  return Val{v, t};
}

// ---------------------------------------------------------------- casts

// bfloat16 values are only converted (to and from float32; other types go through it):
// widening is exact (the bits shifted up); narrowing rounds to nearest even with integer
// ops, NaN kept quiet, so no compiler-rt conversion routine is needed.
Val CodeGenLLVM::BF16ToFloat(const Val& v) {
  DataType i16 = v.t, i32 = v.t, f32 = v.t;
  i16.code = kDLInt, i32.code = kDLInt, i32.bits = 32, f32.code = kDLFloat, f32.bits = 32;
  Val bits = Emit("bitcast " + LLType(v.t) + " " + v.v + " to " + LLType(i16), i16);
  Val wide = Emit("zext " + LLType(i16) + " " + bits.v + " to " + LLType(i32), i32);
  Val up = Emit("shl " + LLType(i32) + " " + wide.v + ", " + Const(i32, 16).v, i32);
  return Emit("bitcast " + LLType(i32) + " " + up.v + " to " + LLType(f32), f32);
}

Val CodeGenLLVM::FloatToBF16(const Val& f, DataType to) {
  DataType i16 = to, i32 = to, b1 = to;
  i16.code = kDLInt, i32.code = kDLInt, i32.bits = 32, b1.code = kDLUInt, b1.bits = 1;
  std::string t32 = LLType(i32);
  Val bits = Emit("bitcast " + LLType(f.t) + " " + f.v + " to " + t32, i32);
  Val odd = Emit("and " + t32 + " " + Emit("lshr " + t32 + " " + bits.v + ", " + Const(i32, 16).v, i32).v + ", " +
                 Const(i32, 1).v, i32);
  Val bias = Emit("add " + t32 + " " + odd.v + ", " + Const(i32, 0x7FFF).v, i32);
  Val rounded = Emit("lshr " + t32 + " " + Emit("add " + t32 + " " + bits.v + ", " + bias.v, i32).v + ", " +
                     Const(i32, 16).v, i32);
  Val quiet = Emit("or " + t32 + " " + Emit("lshr " + t32 + " " + bits.v + ", " + Const(i32, 16).v, i32).v + ", " +
                   Const(i32, 0x40).v, i32);
  Val nan = Emit("fcmp uno " + LLType(f.t) + " " + f.v + ", " + f.v, b1);
  Val sel = Emit("select " + LLType(b1) + " " + nan.v + ", " + t32 + " " + quiet.v + ", " + t32 + " " + rounded.v, i32);
  Val low = Emit("trunc " + t32 + " " + sel.v + " to " + LLType(i16), i16);
  return Emit("bitcast " + LLType(i16) + " " + low.v + " to " + LLType(to), to);
}

Val CodeGenLLVM::Cast(Val v, DataType to) {
  DataType from = v.t;
  if (from == to) return v;
  if (IsBF16(from) || IsBF16(to)) {
    DataType f32 = IsBF16(from) ? from : to;
    f32.code = kDLFloat, f32.bits = 32, f32.lanes = from.lanes;
    if (IsBF16(from) && IsBF16(to)) return v;
    if (IsBF16(from)) return Cast(BF16ToFloat(v), to);
    return FloatToBF16(Cast(v, f32), to);
  }
  std::string ft = LLType(from), tt = LLType(to);
  auto cv = [&](const char* op) { return Emit(std::string(op) + " " + ft + " " + v.v + " to " + tt, to); };
  if (IsBool(to)) {
    if (IsFloat(from)) return Emit("fcmp une " + ft + " " + v.v + ", zeroinitializer", to);
    return Emit("icmp ne " + ft + " " + v.v + ", zeroinitializer", to);
  }
  if (IsIntOrUInt(to)) {
    if (IsFloat(from)) return cv(IsUInt(to) ? "fptoui" : "fptosi");
    if (from.bits == to.bits && !IsBool(from)) return Val{v.v, to};
    if (IsBool(from) || IsUInt(from)) return from.bits < to.bits || IsBool(from) ? cv("zext") : cv("trunc");
    return from.bits < to.bits ? cv("sext") : cv("trunc");
  }
  if (IsFloat(to)) {
    if (IsFloat(from)) return from.bits < to.bits ? cv("fpext") : cv("fptrunc");
    if (IsBool(from) || IsUInt(from)) return cv("uitofp");
    return cv("sitofp");
  }
  TVM_FFI_THROW(TypeError) << "codegen: cannot cast " << DTypeToString(from) << " to " << DTypeToString(to);
}

// ---------------------------------------------------------------- arithmetic

/*! \brief bfloat16 is converted only: arithmetic on it is a TypeError naming the fix. */
void CodeGenLLVM::RejectBF16(DataType t, const char* what) {
  if (IsBF16(t)) {
    TVM_FFI_THROW(TypeError) << "codegen: " << what << " on bfloat16 is not supported (bfloat16 values can "
                             << "only be converted: cast to float32 to compute)";
  }
}

Val CodeGenLLVM::Arith(const char* iop, const char* uop, const char* fop, const PrimExpr& a, const PrimExpr& b, DataType t) {
  Val x = Expr(a), y = Expr(b);
  RejectBF16(x.t, "arithmetic");
  if (IsFloat(x.t)) return Emit(std::string(fop) + fast_math_ + " " + LLType(x.t) + " " + x.v + ", " + y.v, t);
  const char* op = IsUInt(x.t) || IsBool(x.t) ? uop : iop;
  return Emit(std::string(op) + " " + LLType(x.t) + " " + x.v + ", " + y.v, t);
}

Val CodeGenLLVM::Cmp(const char* iop, const char* uop, const char* fop, const PrimExpr& a, const PrimExpr& b, DataType t) {
  Val x = Expr(a), y = Expr(b);
  RejectBF16(x.t, "comparison");
  std::string op = IsFloat(x.t) ? std::string("fcmp ") + fop
                                : std::string("icmp ") + (IsUInt(x.t) || IsBool(x.t) ? uop : iop);
  return Emit(op + " " + LLType(x.t) + " " + x.v + ", " + y.v, t);
}

Val CodeGenLLVM::Cmp0(const std::string& op, const Val& x, const Val& y) {
  return Emit(op + " " + LLType(x.t) + " " + x.v + ", " + y.v, Bool(x.t.lanes));
}

Val CodeGenLLVM::Splat(const std::string& scalar, DataType t) {
  // A constant vector of `scalar` with t.lanes lanes.
  std::string s = "<";
  for (int i = 0; i < t.lanes; ++i) s += (i ? ", " : "") + LLType(ElementOf(t)) + " " + scalar;
  return Val{s + ">", t};
}

Val CodeGenLLVM::Const(DataType t, double v) {
  std::string s;
  if (IsFloat(t)) s = FloatLiteral(t, v);
  else if (IsBool(t)) s = v != 0 ? "true" : "false";
  else s = std::to_string(static_cast<int64_t>(v));
  if (t.lanes > 1) return Splat(s, t);
  return Val{s, t};
}

Val CodeGenLLVM::SplatValue(const Val& x, DataType t) {
  std::string vt = LLType(WithLanes(x.t, t.lanes));
  Val ins = Emit("insertelement " + vt + " poison, " + LLType(x.t) + " " + x.v + ", i32 0", WithLanes(x.t, t.lanes));
  return Emit("shufflevector " + vt + " " + ins.v + ", " + vt + " poison, <" + std::to_string(t.lanes) +
                  " x i32> zeroinitializer", WithLanes(x.t, t.lanes));
}

// ---------------------------------------------------------------- math

// Half precision has no libm entry points, and a half operand passed to the float/double
// ones is misread: math functions run in float and round once (as numpy's float16 does).
Val CodeGenLLVM::Widen(const Val& x) {
  DataType f = x.t;
  f.bits = 32;
  return Emit("fpext " + LLType(x.t) + " " + x.v + " to " + LLType(f), f);
}

Val CodeGenLLVM::Narrow(const Val& y, DataType t) {
  return Emit("fptrunc " + LLType(y.t) + " " + y.v + " to " + LLType(t), t);
}

Val CodeGenLLVM::LibmCall(const std::string& op, const Val& x, DataType t) {
  std::string ty = LLType(x.t);
  if (op == "sigmoid") {
    Val neg = Emit("fneg " + ty + " " + x.v, x.t);
    Val ex = Intrinsic("exp", neg);
    Val one = Const(x.t, 1.0);
    Val den = Emit("fadd " + ty + " " + one.v + ", " + ex.v, x.t);
    return Emit("fdiv " + ty + " " + one.v + ", " + den.v, x.t);
  }
  std::string fn = op + (x.t.bits == 32 ? "f" : "");
  Declare(fn, "declare " + ty + " @" + fn + "(" + ty + ")");
  return Emit("call " + ty + " @" + fn + "(" + ty + " " + x.v + ")", t);
}

Val CodeGenLLVM::VectorMath(const std::string& op, const Val& x) {
  for (const auto& def : VectorMathDefinitions(op, x.t.lanes)) Declare(def.first, def.second);
  std::string ty = LLType(x.t);
  return Emit("call " + ty + " @" + VectorMathName(op, x.t.lanes) + "(" + ty + " " + x.v + ")", x.t);
}

Val CodeGenLLVM::Intrinsic(const std::string& name, const Val& x) {
  if (IsHalf(x)) return Narrow(Intrinsic(name, Widen(x)), x.t);
  if (IsFloat(x.t) && x.t.bits == 32 && x.t.lanes > 1 && HasVectorMath(name)) return VectorMath(name, x);
  std::string sfx = (x.t.lanes > 1 ? "v" + std::to_string(x.t.lanes) : "") + (x.t.bits == 32 ? "f32" : "f64");
  std::string ty = LLType(x.t);
  std::string fn = "llvm." + name + "." + sfx;
  Declare(fn, "declare " + ty + " @" + fn + "(" + ty + ")");
  return Emit("call " + ty + " @" + fn + "(" + ty + " " + x.v + ")", x.t);
}

Val CodeGenLLVM::Call(const CallNode* n, DataType t) {
  std::string op(n->op);
  if (op.rfind("tir.", 0) == 0) op = op.substr(4);
  if (op == "isnullptr" && n->args.size() == 1) {
    Val p = Expr(n->args[0]);
    return Emit("icmp eq ptr " + p.v + ", null", Bool());
  }
  static const char* kUnaryIntrin[] = {"exp", "exp2", "log", "log2", "log10", "sqrt", "sin", "cos",
                                       "floor", "ceil", "trunc", "round", "fabs", "nearbyint"};
  for (const char* name : kUnaryIntrin) {
    if (op == name && n->args.size() == 1) {
      Val x = Expr(n->args[0]);
      if (!IsFloat(x.t)) TVM_FFI_THROW(TypeError) << op << " needs a float argument";
      return Intrinsic(op == "fabs" ? "fabs" : op, x);
    }
  }
  if (op == "pow" && n->args.size() == 2) {
    Val x = Expr(n->args[0]), y = Expr(n->args[1]);
    DataType rt = t;
    if (IsHalf(x)) x = Widen(x), y = Widen(y), t = x.t;
    std::string sfx = (x.t.lanes > 1 ? "v" + std::to_string(x.t.lanes) : "") +
                      (x.t.bits == 32 ? "f32" : "f64"),
                ty = LLType(x.t);
    Declare("llvm.pow." + sfx, "declare " + ty + " @llvm.pow." + sfx + "(" + ty + ", " + ty + ")");
    Val r = Emit("call " + ty + " @llvm.pow." + sfx + "(" + ty + " " + x.v + ", " + ty + " " + y.v + ")", t);
    return IsHalf(Val{"", rt}) ? Narrow(r, rt) : r;
  }
  static const char* kLibm[] = {"tanh", "sigmoid", "atan", "asin", "acos", "erf", "tan", "sinh", "cosh"};
  for (const char* name : kLibm) {
    if (op == name && n->args.size() == 1) {
      Val x = Expr(n->args[0]);
      if (!IsFloat(x.t)) TVM_FFI_THROW(TypeError) << op << " needs a float argument";
      auto one = [&](const Val& v) {  // half computes in float
        return IsHalf(v) ? Narrow(LibmCall(op, Widen(v), Widen(v).t), v.t) : LibmCall(op, v, v.t);
      };
      if (x.t.lanes == 1 || op == "sigmoid") return one(x);  // sigmoid is vector arithmetic
      if (HasVectorMath(op) && x.t.bits <= 32) {
        return IsHalf(x) ? Narrow(VectorMath(op, Widen(x)), x.t) : VectorMath(op, x);
      }
      // Others (and float64): one libm call per lane (libm has no vector entry points).
      DataType et = ElementOf(x.t);
      std::string vt = LLType(x.t), acc = "poison";
      for (int k = 0; k < x.t.lanes; ++k) {
        Val lane = Emit("extractelement " + vt + " " + x.v + ", i32 " + std::to_string(k), et);
        Val r = one(lane);
        acc = Emit("insertelement " + vt + " " + acc + ", " + LLType(et) + " " + r.v + ", i32 " +
                       std::to_string(k),
                   x.t)
                  .v;
      }
      return Val{acc, x.t};
    }
  }
  if (op == "abs" && n->args.size() == 1) {
    Val x = Expr(n->args[0]);
    if (IsFloat(x.t)) return Intrinsic("fabs", x);
    Val z = Const(x.t, 0);
    Val neg = Emit("sub " + LLType(x.t) + " " + z.v + ", " + x.v, x.t);
    Val c = Cmp0("icmp slt", x, z);
    return Emit("select " + LLType(c.t) + " " + c.v + ", " + LLType(x.t) + " " + neg.v + ", " + LLType(x.t) + " " + x.v, t);
  }
  // Bitwise intrinsics on integers (bool for and/or/xor/not). A shift by the type's width
  // or more is poison in LLVM but defined by ONNX (0, or the sign for >> of a negative
  // signed value); a negative amount counts as out of range (the unsigned compare), as
  // ONNX's BitShift-28 says. The amount is clamped to width - 1 and a full shift selected.
  static const std::pair<const char*, const char*> kBitwise[] = {
      {"bitwise_and", "and"}, {"bitwise_or", "or"}, {"bitwise_xor", "xor"}};
  for (const auto& kv : kBitwise) {
    if (op == kv.first && n->args.size() == 2) {
      Val x = Expr(n->args[0]), y = Expr(n->args[1]);
      if (!IsIntOrUInt(x.t) && !IsBool(x.t)) TVM_FFI_THROW(TypeError) << op << " needs integer arguments";
      return Emit(std::string(kv.second) + " " + LLType(x.t) + " " + x.v + ", " + y.v, t);
    }
  }
  if (op == "bitwise_not" && n->args.size() == 1) {
    Val x = Expr(n->args[0]);
    if (!IsIntOrUInt(x.t) && !IsBool(x.t)) TVM_FFI_THROW(TypeError) << op << " needs an integer argument";
    return Emit("xor " + LLType(x.t) + " " + x.v + ", " + (IsBool(x.t) ? Const(x.t, 1).v : Const(x.t, -1).v), t);
  }
  if ((op == "shift_left" || op == "shift_right") && n->args.size() == 2) {
    Val x = Expr(n->args[0]), y = Expr(n->args[1]);
    if (!IsIntOrUInt(x.t)) TVM_FFI_THROW(TypeError) << op << " needs integer arguments";
    std::string ty = LLType(x.t), bt = LLType(Bool(x.t.lanes));
    Val width = Const(x.t, x.t.bits);
    Val big = Emit("icmp uge " + ty + " " + y.v + ", " + width.v, Bool(x.t.lanes));
    Val last = Const(x.t, x.t.bits - 1);
    Val amt = Emit("select " + bt + " " + big.v + ", " + ty + " " + last.v + ", " + ty + " " + y.v, x.t);
    if (op == "shift_left") {
      Val r = Emit("shl " + ty + " " + x.v + ", " + amt.v, x.t);
      return Emit("select " + bt + " " + big.v + ", " + ty + " " + Const(x.t, 0).v + ", " + ty + " " + r.v, t);
    }
    if (IsUInt(x.t)) {
      Val r = Emit("lshr " + ty + " " + x.v + ", " + amt.v, x.t);
      return Emit("select " + bt + " " + big.v + ", " + ty + " " + Const(x.t, 0).v + ", " + ty + " " + r.v, t);
    }
    return Emit("ashr " + ty + " " + x.v + ", " + amt.v, t);  // width-1 already gives the sign
  }
  if (op == "if_then_else" && n->args.size() == 3) {
    Val c = Expr(n->args[0]), x = Expr(n->args[1]), y = Expr(n->args[2]);
    return Emit("select " + LLType(c.t) + " " + c.v + ", " + LLType(t) + " " + x.v + ", " + LLType(t) + " " + y.v, t);
  }
  TVM_FFI_THROW(ValueError) << "codegen: unsupported intrinsic " << std::string(n->op);
}

}  // namespace codegen
}  // namespace tvm
