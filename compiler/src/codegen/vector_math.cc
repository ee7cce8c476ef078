/*
 * Vector exp / erf / tanh as LLVM IR text (see vector_math.h for why and how accurate).
 * Each function is `internal` and `alwaysinline`: it disappears into the loop that calls it.
 * The text uses llvm.fmuladd (fused where the target has FMA, two roundings elsewhere; the
 * error figures hold either way within one ulp).
 */
#include "vector_math.h"

#include <tvm/ffi/error.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace tvm {
namespace codegen {
namespace {

// Fitted by tools/fit_vector_math.py (least squares on Chebyshev nodes, rounded to float32;
// worst error measured in float32 FMA steps on 200k points per piece).
// erf, |x| < 1: x * P(x^2); worst error 2.39 ulp
constexpr float kErfSmall[8] = {1.128379226e+00f, -3.761263788e-01f, 1.128378436e-01f, -2.686551772e-02f,
                                5.221261177e-03f, -8.487265441e-04f, 1.128815566e-04f, -9.728349141e-06f};
// erf, 1 <= |x| < 2.5: P(|x| - 1); worst error 1.52 ulp
constexpr float kErfMid[11] = {8.427007794e-01f,  4.151079059e-01f,  -4.151191115e-01f, 1.385028958e-01f,
                               6.838604808e-02f,  -6.636271626e-02f, -1.709286473e-03f, 2.441914007e-02f,
                               -1.364558749e-02f, 3.377577290e-03f,  -3.353738284e-04f};
// erf, 2.5 <= |x| < 3.925: P(|x| - 2.5); worst error 1.01 ulp. From 3.925 on, erf rounds to 1.
constexpr float kErfLarge[11] = {9.995930195e-01f,  2.178305993e-03f, -5.446341354e-03f, 8.357278071e-03f,
                                 -8.664726280e-03f, 6.264419295e-03f, -3.121202113e-03f, 1.004945370e-03f,
                                 -1.733207755e-04f, 4.595340670e-06f, 2.255287200e-06f};
// tanh, |x| < 0.625: x * P(x^2); worst error 1.14 ulp. Above, 1 - 2 / (exp(2|x|) + 1) loses
// at most ~1 more ulp to cancellation at the joint.
constexpr float kTanhSmall[7] = {1.000000000e+00f, -3.333333135e-01f, 1.333320588e-01f, -5.394696444e-02f,
                                 2.170222439e-02f, -8.181562647e-03f, 2.146903425e-03f};

// exp: x = n ln2 + r, |r| <= ln2 / 2, with ln2 split in two (the high part has few bits, so
// n * kLn2Hi is exact for every n in range); e^r by its Taylor polynomial to r^7 (the
// remainder is below 0.1 ulp there); 2^n applied in two halves so subnormal results round once.
constexpr float kLog2e = 1.44269502e+00f;
constexpr float kLn2Hi = 6.93359375e-01f;
constexpr float kLn2Lo = -2.12194440e-04f;
constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
constexpr int kRoundMagicBits = 0x4B400000;  // its bit pattern
constexpr float kExpMax = 88.8f;            // above ln(FLT_MAX): the result is +inf
constexpr float kExpMin = -104.0f;          // below ln(smallest subnormal / 2): the result is 0
constexpr float kExpTaylor[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};

std::string Hex(float f) {
  double d = f;  // LLVM spells a float constant as the double with the same value
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%016llX", static_cast<unsigned long long>(bits));
  return buf;
}

// A function body under construction: numbered temporaries over one vector type.
class Body {
 public:
  explicit Body(int lanes)
      : n_(std::to_string(lanes)), vt_("<" + n_ + " x float>"), it_("<" + n_ + " x i32>"),
        bt_("<" + n_ + " x i1>") {}

  const std::string& vt() const { return vt_; }
  // Splat constants, as operands after the type has been said.
  std::string f(float c) const { return "splat (float " + Hex(c) + ")"; }
  std::string i(int c) const { return "splat (i32 " + std::to_string(c) + ")"; }

  std::string Let(const std::string& rhs) {
    std::string v = "%v" + std::to_string(count_++);
    text_ << "  " << v << " = " << rhs << "\n";
    return v;
  }
  std::string Bin(const char* op, const std::string& a, const std::string& b) {
    return Let(std::string(op) + " " + vt_ + " " + a + ", " + b);
  }
  std::string IBin(const char* op, const std::string& a, const std::string& b) {
    return Let(std::string(op) + " " + it_ + " " + a + ", " + b);
  }
  std::string FCmp(const char* pred, const std::string& a, const std::string& b) {
    return Let(std::string("fcmp ") + pred + " " + vt_ + " " + a + ", " + b);
  }
  std::string Select(const std::string& c, const std::string& a, const std::string& b) {
    return Let("select " + bt_ + " " + c + ", " + vt_ + " " + a + ", " + vt_ + " " + b);
  }
  std::string Call1(const std::string& fn, const std::string& a) {
    return Let("call " + vt_ + " @" + fn + "(" + vt_ + " " + a + ")");
  }
  std::string Call2(const std::string& fn, const std::string& a, const std::string& b) {
    return Let("call " + vt_ + " @" + fn + "(" + vt_ + " " + a + ", " + vt_ + " " + b + ")");
  }
  std::string FMA(const std::string& a, const std::string& b, const std::string& c) {
    return Let("call " + vt_ + " @llvm.fmuladd.v" + n_ + "f32(" + vt_ + " " + a + ", " + vt_ + " " + b + ", " +
               vt_ + " " + c + ")");
  }
  // c[0] + t (c[1] + t (c[2] + ...)), each coefficient a splat or a per-lane value.
  std::string Horner(const std::vector<std::string>& c, const std::string& t) {
    std::string acc = c.back();
    for (size_t k = c.size() - 1; k-- > 0;) acc = FMA(acc, t, c[k]);
    return acc;
  }
  std::string Horner(const float* c, int count, const std::string& t) {
    std::vector<std::string> cs;
    for (int k = 0; k < count; ++k) cs.push_back(f(c[k]));
    return Horner(cs, t);
  }
  std::string ToInt(const std::string& a) { return Let("bitcast " + vt_ + " " + a + " to " + it_); }
  std::string ToFloat(const std::string& a) { return Let("bitcast " + it_ + " " + a + " to " + vt_); }

  std::string Define(const std::string& name, const std::string& result) const {
    return "define internal " + vt_ + " @" + name + "(" + vt_ + " %x) alwaysinline nounwind {\nentry:\n" +
           text_.str() + "  ret " + vt_ + " " + result + "\n}";
  }
  std::string Intrinsic(const std::string& base, int arity) const {
    std::string sig = "declare " + vt_ + " @llvm." + base + ".v" + n_ + "f32(" + vt_;
    for (int k = 1; k < arity; ++k) sig += ", " + vt_;
    return sig + ")";
  }
  std::string IntrinsicName(const std::string& base) const { return "llvm." + base + ".v" + n_ + "f32"; }

 private:
  std::string n_, vt_, it_, bt_;
  std::ostringstream text_;
  int count_{0};
};

std::string ExpBody(Body& b, const std::string& x) {
  std::string big = b.FCmp("ogt", x, b.f(kExpMax));
  std::string x1 = b.Select(big, b.f(kExpMax), x);
  std::string small = b.FCmp("olt", x1, b.f(kExpMin));
  std::string x2 = b.Select(small, b.f(kExpMin), x1);
  std::string t = b.FMA(x2, b.f(kLog2e), b.f(kRoundMagic));  // kRoundMagic + round(x log2 e)
  std::string nf = b.Bin("fsub", t, b.f(kRoundMagic));
  std::string r = b.FMA(nf, b.f(-kLn2Hi), x2);
  r = b.FMA(nf, b.f(-kLn2Lo), r);
  std::string p = b.Horner(kExpTaylor, 8, r);
  // n from t's bits (t stays in [2^23, 2^24), where one ulp is 1); 2^n as 2^h * 2^(n-h).
  std::string n = b.IBin("sub", b.ToInt(t), b.i(kRoundMagicBits));
  std::string h = b.IBin("ashr", n, b.i(1));
  std::string rest = b.IBin("sub", n, h);
  auto pow2 = [&](const std::string& e) {
    return b.ToFloat(b.IBin("shl", b.IBin("add", e, b.i(127)), b.i(23)));
  };
  std::string y = b.Bin("fmul", b.Bin("fmul", p, pow2(h)), pow2(rest));
  std::string nan = b.FCmp("uno", x, x);
  return b.Select(nan, x, y);
}

}  // namespace

bool HasVectorMath(const std::string& op) { return op == "exp" || op == "erf" || op == "tanh"; }

std::string VectorMathName(const std::string& op, int lanes) {
  return "tvm.vmath." + op + ".v" + std::to_string(lanes) + "f32";
}

std::vector<std::pair<std::string, std::string>> VectorMathDefinitions(const std::string& op, int lanes) {
  if (!HasVectorMath(op) || lanes < 2) {
    TVM_FFI_THROW(InternalError) << "vector math: no float32 x " << lanes << " form of " << op;
  }
  Body b(lanes);
  std::vector<std::pair<std::string, std::string>> out;
  auto need = [&](const std::string& base, int arity) {
    out.emplace_back(b.IntrinsicName(base), b.Intrinsic(base, arity));
  };
  need("fmuladd", 3);
  std::string result;
  if (op == "exp") {
    result = ExpBody(b, "%x");
  } else if (op == "erf") {
    need("fabs", 1);
    need("copysign", 2);
    std::string a = b.Call1(b.IntrinsicName("fabs"), "%x");
    std::string small = b.Bin("fmul", a, b.Horner(kErfSmall, 8, b.Bin("fmul", a, a)));
    // The two outer pieces share one evaluation with per-lane coefficients.
    std::string large = b.FCmp("oge", a, b.f(2.5f));
    std::vector<std::string> coef;
    for (int k = 0; k < 11; ++k) coef.push_back(b.Select(large, b.f(kErfLarge[k]), b.f(kErfMid[k])));
    std::string u = b.Bin("fsub", a, b.Select(large, b.f(2.5f), b.f(1.0f)));
    std::string outer = b.Horner(coef, u);
    std::string y = b.Select(b.FCmp("olt", a, b.f(1.0f)), small, outer);
    y = b.Select(b.FCmp("oge", a, b.f(3.925f)), b.f(1.0f), y);
    result = b.Call2(b.IntrinsicName("copysign"), y, "%x");
  } else {  // tanh
    need("fabs", 1);
    need("copysign", 2);
    for (const auto& d : VectorMathDefinitions("exp", lanes)) out.push_back(d);
    std::string a = b.Call1(b.IntrinsicName("fabs"), "%x");
    std::string small = b.Bin("fmul", a, b.Horner(kTanhSmall, 7, b.Bin("fmul", a, a)));
    std::string e = b.Call1(VectorMathName("exp", lanes), b.Bin("fadd", a, a));
    std::string big = b.Bin("fsub", b.f(1.0f), b.Bin("fdiv", b.f(2.0f), b.Bin("fadd", e, b.f(1.0f))));
    std::string y = b.Select(b.FCmp("olt", a, b.f(0.625f)), small, big);
    result = b.Call2(b.IntrinsicName("copysign"), y, "%x");
  }
  out.emplace_back(VectorMathName(op, lanes), b.Define(VectorMathName(op, lanes), result));
  return out;
}

}  // namespace codegen
}  // namespace tvm
