/*
 * CodeGenLLVM, the target-independent part (codegen_llvm.h): LLVM types, the module and
 * function text, statements and buffer access. Expressions are in codegen_llvm_expr.cc.
 */
#include "codegen_llvm.h"

#include <tvm/tir/functor.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <sstream>

namespace tvm {
namespace codegen {

// ---------------------------------------------------------------- types and literals

std::string LLType(DataType t) {
  std::string s;
  if (IsBool(t)) s = "i1";
  else if (IsIntOrUInt(t)) s = "i" + std::to_string(t.bits);
  else if (IsFloat(t)) {
    if (t.bits == 32) s = "float";
    else if (t.bits == 64) s = "double";
    else if (t.bits == 16) s = "half";
    else TVM_FFI_THROW(TypeError) << "codegen: unsupported float width " << int(t.bits);
  } else if (t.code == kDLBfloat && t.bits == 16) s = "bfloat";
  else if (IsHandle(t)) s = "ptr";
  else TVM_FFI_THROW(TypeError) << "codegen: unsupported dtype " << DTypeToString(t);
  if (t.lanes > 1) return "<" + std::to_string(t.lanes) + " x " + s + ">";
  return s;
}

std::string MemType(DataType t) {
  if (IsBool(t)) return t.lanes > 1 ? "<" + std::to_string(t.lanes) + " x i8>" : "i8";
  return LLType(t);
}

/*! \brief IEEE binary16 bits of `v`, rounded once to nearest even (overflow to inf, NaN kept). */
uint16_t HalfBits(double v) {
  uint64_t x;
  std::memcpy(&x, &v, 8);
  uint64_t sign = (x >> 48) & 0x8000u, man = x & ((uint64_t{1} << 52) - 1);
  int exp = static_cast<int>((x >> 52) & 0x7FF);
  if (exp == 0x7FF) return static_cast<uint16_t>(sign | 0x7C00u | (man ? 0x200u : 0u));
  int e = exp - 1023 + 15;  // the half's biased exponent
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  if (exp == 0 || e < -10) return static_cast<uint16_t>(sign);  // zero, or below half's range
  man |= uint64_t{1} << 52;                                     // the implicit bit
  int shift = e <= 0 ? 42 + (1 - e) : 42;                       // keep 10 bits (subnormal: fewer)
  uint64_t half = man >> shift, rest = man & ((uint64_t{1} << shift) - 1);
  uint64_t mid = uint64_t{1} << (shift - 1);
  if (e > 0) half = (static_cast<uint64_t>(e) << 10) | (half & 0x3FFu);
  if (rest > mid || (rest == mid && (half & 1u))) ++half;  // a carry rolls into the exponent
  return static_cast<uint16_t>(sign | half);
}

std::string FloatLiteral(DataType t, double v) {
  if (t.bits == 16) {
    // LLVM reads a `half` constant only in its own 0xH form (a double-form constant must be
    // exact in half, which 0.7071... is not).
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0xH%04X", HalfBits(v));
    return buf;
  }
  if (t.bits == 32) v = static_cast<double>(static_cast<float>(v));
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%016llX", static_cast<unsigned long long>(bits));
  return buf;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 32 && c < 127 && c != '"' && c != '\\') out += static_cast<char>(c);
    else {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "\\%02X", c);
      out += buf;
    }
  }
  return out;
}

// ---------------------------------------------------------------- module and function text

void CodeGenLLVM::Declare(const std::string& name, const std::string& sig) {
  if (!declared_.count(name)) declared_[name] = sig;
}

std::string FastMathFlags(const std::string& list) {
  static const char* const kFlags[] = {"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"};
  std::string out;
  std::istringstream is(list);
  for (std::string flag; std::getline(is, flag, ',');) {
    if (flag.empty()) continue;
    if (std::find(std::begin(kFlags), std::end(kFlags), flag) == std::end(kFlags)) {
      TVM_FFI_THROW(ValueError) << "codegen: '" << flag << "' is not an LLVM fast-math flag "
                                << "(fast, nnan, ninf, nsz, arcp, contract, afn, reassoc)";
    }
    out += " " + flag;
  }
  return out;
}

std::string CodeGenLLVM::Str(const std::string& s) {
  auto it = strings_.find(s);
  if (it != strings_.end()) return it->second;
  std::string name = "@.str." + std::to_string(strings_.size());
  globals_ << name << " = private unnamed_addr constant [" << s.size() + 1 << " x i8] c\""
           << Escape(s) << "\\00\", align 1\n";
  strings_[s] = name;
  return name;
}

void CodeGenLLVM::BeginFunction(const std::string& name) {
  body_.str("");
  allocas_.str("");
  tmp_ = 0;
  label_ = 0;
  vars_.clear();
  fresh_tags_.clear();
  other_tags_.clear();
  func_name_ = name;
}

namespace {
// Whether an expression reads a fresh buffer or uses a fresh pointer (ScopeFreshBuffers).
class FreshUseFinder : public ExprMutator {
 public:
  explicit FreshUseFinder(const std::unordered_map<const Object*, int>& fresh) : fresh_(fresh) {}
  bool found = false;
  PrimExpr VisitExpr(const PrimExpr& e) final {
    if (found) return e;
    if (fresh_.count(e.get())) {
      found = true;
    } else if (auto* load = e.as<BufferLoadNode>()) {
      found = fresh_.count(load->buffer->data.get()) != 0;
    }
    return found ? e : MutateExprChildren(e);
  }

 private:
  const std::unordered_map<const Object*, int>& fresh_;
};
}  // namespace

void CodeGenLLVM::ScopeFreshBuffers(const tvm::Stmt& body, const std::string& func_name) {
  std::vector<std::pair<const Object*, std::string>> fresh;  // data var, name; in body order
  std::vector<const LetStmtNode*> pointer_lets;              // other handles bound by LetStmt
  PostOrderRewrite(body, [&](const tvm::Stmt& x) {
    if (auto* a = x.as<AllocateNode>()) {
      fresh.emplace_back(a->buffer->data.get(), std::string(a->buffer->name));
    } else if (auto* l = x.as<LetStmtNode>()) {
      auto* call = l->value.as<CallNode>();
      if (call != nullptr && std::string(call->op) == "tir.TVMBackendAllocWorkspace") {
        fresh.emplace_back(l->var.get(), std::string(l->var->name));
      } else if (IsHandle(l->var->dtype)) {
        pointer_lets.push_back(l);
      }
    }
    return x;
  });
  if (fresh.empty()) return;
  // A pointer bound to a fresh one is the same memory (its scope); one computed from fresh
  // memory in any other way (read out of it, say) could point anywhere into it, so such a
  // function gets no scopes at all. Our passes make neither; hand-written TIR might.
  std::unordered_map<const Object*, int> index;
  for (size_t i = 0; i < fresh.size(); ++i) index[fresh[i].first] = static_cast<int>(i);
  std::vector<std::pair<const Object*, int>> aliases;
  for (bool more = true; more;) {
    more = false;
    for (const LetStmtNode* l : pointer_lets) {
      if (index.count(l->var.get())) continue;
      auto it = index.find(l->value.get());
      if (it != index.end()) {
        index[l->var.get()] = it->second;
        aliases.emplace_back(l->var.get(), it->second);
        more = true;
      }
    }
  }
  for (const LetStmtNode* l : pointer_lets) {
    if (index.count(l->var.get())) continue;
    FreshUseFinder finder(index);
    finder.VisitExpr(l->value);
    if (finder.found) return;
  }
  EmitAliasScopes(fresh, aliases, func_name);
}

void CodeGenLLVM::EmitAliasScopes(const std::vector<std::pair<const Object*, std::string>>& fresh,
                                  const std::vector<std::pair<const Object*, int>>& aliases,
                                  const std::string& func_name) {
  // !D: the function's domain; !S_i: a scope per fresh buffer; !L_i = {S_i};
  // !O_i = every S_j but S_i; !A = every S_i.
  const int n = static_cast<int>(fresh.size());
  const int domain = md_count_, scopes = domain + 1, lists = scopes + n, others = lists + n, all = others + n;
  md_count_ = all + 1;
  metadata_ << "!" << domain << " = distinct !{!" << domain << ", !\"" << Escape(func_name) << "\"}\n";
  for (int i = 0; i < n; ++i) {
    metadata_ << "!" << scopes + i << " = distinct !{!" << scopes + i << ", !" << domain << ", !\""
              << Escape(fresh[i].second) << "\"}\n";
  }
  auto list = [&](int skip) {
    std::string out = "!{";
    for (int j = 0, k = 0; j < n; ++j) {
      if (j != skip) out += (k++ ? ", !" : "!") + std::to_string(scopes + j);
    }
    return out + "}";
  };
  for (int i = 0; i < n; ++i) metadata_ << "!" << lists + i << " = !{!" << scopes + i << "}\n";
  for (int i = 0; i < n; ++i) metadata_ << "!" << others + i << " = " << list(i) << "\n";
  metadata_ << "!" << all << " = " << list(-1) << "\n";
  for (int i = 0; i < n; ++i) {
    std::string tags = ", !alias.scope !" + std::to_string(lists + i);
    if (n > 1) tags += ", !noalias !" + std::to_string(others + i);
    fresh_tags_[fresh[i].first] = tags;
  }
  for (const auto& [var, i] : aliases) fresh_tags_[var] = fresh_tags_[fresh[i].first];
  other_tags_ = ", !noalias !" + std::to_string(all);
}

std::string CodeGenLLVM::AliasTags(const Buffer& b) const {
  if (other_tags_.empty()) return "";
  auto it = fresh_tags_.find(b->data.get());
  return it == fresh_tags_.end() ? other_tags_ : it->second;
}

void CodeGenLLVM::EndFunction(const std::string& signature, const std::string& epilogue) {
  funcs_ << "define " << signature << " {\nentry:\n" << allocas_.str() << body_.str() << epilogue << "}\n\n";
}

std::string CodeGenLLVM::Assemble(const std::string& banner, const std::string& triple) {
  std::ostringstream out;
  out << banner;
  if (!triple.empty()) out << "target triple = \"" << triple << "\"\n";
  out << "\n" << globals_.str() << "\n";
  for (const auto& kv : declared_) out << kv.second << "\n";
  out << "\n" << funcs_.str();
  out << "attributes #0 = { nounwind }\n";
  out << "attributes #1 = { noinline nounwind optnone }\n";  // glue compiled without optimisation
  out << metadata_.str();
  return out.str();
}

std::string CodeGenLLVM::Load(const std::string& ty, const std::string& ptr, int64_t offset, int align) {
  std::string p = ptr;
  if (offset != 0) {
    p = Tmp();
    body_ << "  " << p << " = getelementptr inbounds i8, ptr " << ptr << ", i64 " << offset << "\n";
  }
  std::string v = Tmp();
  body_ << "  " << v << " = load " << ty << ", ptr " << p << ", align " << align << "\n";
  return v;
}

// ---------------------------------------------------------------- statements

void CodeGenLLVM::Stmt(const tvm::Stmt& s) {
  if (!s.defined()) return;
  if (auto* n = s.as<SeqStmtNode>()) {
    for (const tvm::Stmt& x : n->seq) Stmt(x);
  } else if (auto* n = s.as<ForNode>()) {
    Val mn = Expr(n->min), ext = Expr(n->extent);
    DataType t = n->loop_var->dtype;
    mn = Cast(mn, t);
    ext = Cast(ext, t);
    std::string ty = LLType(t);
    std::string end = Tmp();
    body_ << "  " << end << " = add " << ty << " " << mn.v << ", " << ext.v << "\n";
    if (n->kind == static_cast<int64_t>(ForKind::kParallel) && ParallelFor(n, mn, ext)) return;
    std::string addr = "%" + Label("iv.addr");
    allocas_ << "  " << addr << " = alloca " << ty << "\n";
    body_ << "  store " << ty << " " << mn.v << ", ptr " << addr << "\n";
    std::string cond = Label("for.cond"), bodyl = Label("for.body"), endl = Label("for.end");
    body_ << "  br label %" << cond << "\n" << cond << ":\n";
    std::string iv = Tmp(), c = Tmp();
    body_ << "  " << iv << " = load " << ty << ", ptr " << addr << "\n";
    body_ << "  " << c << " = icmp slt " << ty << " " << iv << ", " << end << "\n";
    body_ << "  br i1 " << c << ", label %" << bodyl << ", label %" << endl << "\n";
    body_ << bodyl << ":\n";
    vars_[n->loop_var.get()] = Val{iv, t};
    BoundLoopVar(n);
    Stmt(n->body);
    std::string nx = Tmp();
    body_ << "  " << nx << " = add " << ty << " " << iv << ", 1\n";
    body_ << "  store " << ty << " " << nx << ", ptr " << addr << "\n";
    body_ << "  br label %" << cond << LoopMetadata(n) << "\n" << endl << ":\n";
  } else if (auto* n = s.as<BufferStoreNode>()) {
    Val v = Expr(n->value);
    if (v.t.lanes > 1) {
      VectorStore(n, v);
      return;
    }
    std::string p = Address(n->buffer, n->indices);
    std::string mt = MemType(v.t);
    std::string sv = v.v;
    if (IsBool(v.t)) {
      sv = Tmp();
      body_ << "  " << sv << " = zext " << LLType(v.t) << " " << v.v << " to " << mt << "\n";
    }
    body_ << "  store " << mt << " " << sv << ", ptr " << p << ", align " << ElemAlign(n->buffer->dtype)
          << AliasTags(n->buffer) << "\n";
  } else if (auto* n = s.as<LetStmtNode>()) {
    vars_[n->var.get()] = Expr(n->value);
    BoundLetVar(n->var, n->value);
    Stmt(n->body);
  } else if (auto* n = s.as<IfThenElseNode>()) {
    Val c = Expr(n->condition);
    std::string tl = Label("if.then"), el = Label("if.else"), dl = Label("if.end");
    body_ << "  br i1 " << c.v << ", label %" << tl << ", label %" << el << "\n" << tl << ":\n";
    Stmt(n->then_case);
    body_ << "  br label %" << dl << "\n" << el << ":\n";
    Stmt(n->else_case);
    body_ << "  br label %" << dl << "\n" << dl << ":\n";
  } else if (auto* n = s.as<AllocateNode>()) {
    // Small constant-size temporaries live on the stack (entry-block alloca), like TVM's
    // kMaxStackAlloca rule; everything else comes from the workspace pool.
    int64_t bytes = ElemAlign(n->buffer->dtype);
    for (const PrimExpr& d : n->buffer->shape) {
      const int64_t* c = AsConstInt(d);
      bytes = (c != nullptr && bytes <= 1024) ? bytes * *c : -1;
      if (bytes < 0) break;
    }
    // A zero-size buffer (a reduction over an empty set, a 0-row matrix) is never read or
    // written, but still needs an address: one byte.
    if (bytes >= 0 && bytes <= 1024) {
      std::string a = "%" + Label("stack");
      allocas_ << "  " << a << " = alloca [" << std::max<int64_t>(bytes, 1) << " x i8], align 64\n";
      vars_[n->buffer->data.get()] = Val{a, Handle()};
      Stmt(n->body);
      return;
    }
    TVM_FFI_THROW(ValueError) << "codegen: " << std::string(n->buffer->name)
                              << " is too large or not constant for the stack; run "
                                 "tir.transform.LowerTVMBuiltin first (tvm.compile does)";
  } else if (auto* n = s.as<EvaluateNode>()) {
    Expr(n->value);
  } else if (s.as<BlockRealizeNode>() || s.as<BlockNode>()) {
    TVM_FFI_THROW(ValueError) << "codegen: the function still has blocks; lower it first "
                                 "(tvm.lower / tvm.compile run the block-lowering passes)";
  } else {
    TVM_FFI_THROW(ValueError) << "codegen: unsupported statement " << s.GetTypeKey();
  }
}

void CodeGenLLVM::BoundLoopVar(const ForNode* n) {
  if (n->loop_var->dtype.lanes != 1) return;
  arith::ConstIntBound mn = arith::EvalConstIntBound(n->min, bounds_);
  arith::ConstIntBound ext = arith::EvalConstIntBound(n->extent, bounds_);
  int64_t hi = arith::kPosInf;
  if (mn.max_value != arith::kPosInf && ext.max_value != arith::kPosInf && mn.max_value < (int64_t(1) << 62) &&
      ext.max_value < (int64_t(1) << 62)) {
    hi = mn.max_value + ext.max_value - 1;
  }
  bounds_[n->loop_var.get()] = arith::ConstIntBound{mn.min_value, std::max(hi, mn.min_value)};
}

void CodeGenLLVM::BoundLetVar(const Var& v, const PrimExpr& value) {
  if (v->dtype.lanes != 1 || !IsIntOrUInt(v->dtype)) return;
  bounds_[v.get()] = arith::EvalConstIntBound(value, bounds_);
}

bool CodeGenLLVM::NonNegativeByPositive(const PrimExpr& a, const PrimExpr& b) const {
  DataType t = a.dtype();
  if (t.lanes != 1 || t.code != kDLInt) return false;
  return arith::EvalConstIntBound(a, bounds_).min_value >= 0 && arith::EvalConstIntBound(b, bounds_).min_value > 0;
}

bool CodeGenLLVM::ParallelFor(const ForNode*, const Val&, const Val&) { return false; }

namespace {

// Loops LLVM unrolls whole when UnrollLeftToTIR lets it (see there).
constexpr int64_t kLLVMUnrollsWholeBelow = 8;

// Calls of math functions x86 has no instruction for (exp, log, pow, the trigonometric
// ones), found in a loop body: scalar ones (LLVM's libm calls) and vector ones (TIR's
// polynomials, vector_math.h, each some tens of instructions once inlined).
class MathCallFinder : public ExprMutator {
 public:
  bool scalar = false;
  bool vector = false;
  PrimExpr VisitExpr(const PrimExpr& e) final {
    if (auto* c = e.as<CallNode>()) {
      static const char* kNoInstruction[] = {"exp", "exp2", "exp10", "log", "log2", "log10", "log1p",
                                             "pow", "sin", "cos", "tan", "tanh", "sigmoid", "erf",
                                             "atan", "asin", "acos", "sinh", "cosh", "atan2", "fmod",
                                             "expm1"};
      std::string op(c->op);
      if (op.rfind("tir.", 0) == 0) op = op.substr(4);
      for (const char* name : kNoInstruction) {
        if (op == name) (c->dtype.lanes == 1 ? scalar : vector) = true;
      }
    }
    return MutateExprChildren(e);
  }
};

struct BodyFacts {
  bool stores_vectors = false;
  bool has_loop = false;
  bool scalar_math = false;
  bool vector_math = false;
};

BodyFacts Inspect(const tvm::Stmt& s) {
  BodyFacts facts;
  PostOrderRewrite(s, [&](const tvm::Stmt& x) {
    if (auto* st = x.as<BufferStoreNode>()) facts.stores_vectors |= st->value.dtype().lanes > 1;
    facts.has_loop |= x.as<ForNode>() != nullptr;
    return x;
  });
  MathCallFinder math;
  math.VisitStmt(s);
  facts.scalar_math = math.scalar;
  facts.vector_math = math.vector;
  return facts;
}

// A serial loop whose body stores vectors was scheduled: DefaultSchedule unrolled and
// vectorized what it wanted inside it (a register tile over a reduction loop). LLVM's
// unroller copying such a body again buys nothing measurable (SqueezeNet, ResNet-50: every
// conv within noise) and is about a third of LLVM's time on our kernels (codegen of the
// copies included). An innermost loop of a few iterations stays LLVM's to unroll whole (a
// stem conv's three input channels run ~20% faster unrolled) unless its body evaluates a
// vector polynomial (a softmax's exp: eight copies of it were half of a softmax's code); one
// with loops inside (a 3x3 conv's kernel rows) does not: unrolled, it triples the code for
// nothing. Scalar loops (a reduction TIR left to LLVM's vectorizer, such as a mean over a
// row) keep LLVM's unrolling: they need it.
bool UnrollLeftToTIR(const ForNode* n, const BodyFacts& body) {
  // A parallel loop's chunk loop (CodeGenCPU::ParallelFor) too: LLVM unrolled a layer
  // norm's row loop four times around the scheduled row.
  if (n->kind != static_cast<int64_t>(ForKind::kSerial) && n->kind != static_cast<int64_t>(ForKind::kParallel)) {
    return false;
  }
  const int64_t* ext = AsConstInt(n->extent);
  if (ext != nullptr && *ext <= kLLVMUnrollsWholeBelow && !body.has_loop && !body.vector_math) return false;
  return body.stores_vectors;
}

// Loops LLVM's loop vectorizer is told to leave alone. One calling scalar math (exp, log...):
// there is no vector math library, so llvm.exp.v16f32 becomes one library call per lane
// around vector loads; a softmax over 10 columns grew from 3 KB of IR to 30 KB so (40% of
// the MLP's LLVM time) for no speed: the calls dominate. TIR's own vector math is not
// affected (its calls have vector types).
bool VectorizeLeftToTIR(const ForNode* n, const BodyFacts& body) {
  if (n->kind == static_cast<int64_t>(ForKind::kVectorized)) return false;
  // A scalar loop nest TIR did not vectorize (a softmax's max over 10 columns, the last
  // step of a row reduction over 16 partial sums): LLVM unrolls the short inner loop whole
  // and vectorizes the loop around it across rows with gathers, ~30 KB of code a kernel
  // for a few hundred scalar operations. Innermost loops keep LLVM's vectorizer.
  return body.scalar_math || (body.has_loop && !body.stores_vectors);
}

}  // namespace

std::string CodeGenLLVM::LoopMetadata(const ForNode* n) {
  int64_t kind = n->kind;
  BodyFacts body = Inspect(n->body);
  std::vector<std::string> hints;
  if (UnrollLeftToTIR(n, body)) {
    hints.push_back("!{!\"llvm.loop.unroll.disable\"}");
  } else if (kind == static_cast<int64_t>(ForKind::kVectorized)) {
    hints.push_back("!{!\"llvm.loop.vectorize.enable\", i1 true}");
  } else if (kind == static_cast<int64_t>(ForKind::kUnrolled)) {
    hints.push_back("!{!\"llvm.loop.unroll.full\"}");
  }
  if (VectorizeLeftToTIR(n, body)) hints.push_back("!{!\"llvm.loop.vectorize.enable\", i1 false}");
  if (hints.empty()) return "";
  int id = md_count_;
  md_count_ += 1 + static_cast<int>(hints.size());
  metadata_ << "!" << id << " = distinct !{!" << id;
  for (size_t k = 0; k < hints.size(); ++k) metadata_ << ", !" << id + 1 + k;
  metadata_ << "}\n";
  for (size_t k = 0; k < hints.size(); ++k) metadata_ << "!" << id + 1 + k << " = " << hints[k] << "\n";
  return ", !llvm.loop !" + std::to_string(id);
}

// ---------------------------------------------------------------- buffers

const Val& CodeGenLLVM::BufferData(const Buffer& b) {
  auto it = vars_.find(b->data.get());
  if (it == vars_.end()) TVM_FFI_THROW(ValueError) << "codegen: buffer " << std::string(b->name) << " is not bound";
  return it->second;
}

std::string CodeGenLLVM::Address(const Buffer& b, const Array<PrimExpr>& indices) {
  auto it = vars_.find(b->data.get());
  if (it == vars_.end()) TVM_FFI_THROW(ValueError) << "codegen: buffer " << std::string(b->name) << " is not bound";
  std::string flat;
  size_t nd = indices.size();
  if (nd == 0) flat = "0";
  for (size_t k = 0; k < nd; ++k) {
    Val i = Cast(Expr(indices[k]), Int(64));
    if (!b->strides.empty()) {
      Val s = Cast(Expr(b->strides[k]), Int(64));
      std::string m = Tmp();
      body_ << "  " << m << " = mul i64 " << i.v << ", " << s.v << "\n";
      if (flat.empty()) flat = m;
      else {
        std::string a = Tmp();
        body_ << "  " << a << " = add i64 " << flat << ", " << m << "\n";
        flat = a;
      }
    } else if (flat.empty()) {
      flat = i.v;
    } else {
      Val d = Cast(Expr(b->shape[k]), Int(64));
      std::string m = Tmp(), a = Tmp();
      body_ << "  " << m << " = mul i64 " << flat << ", " << d.v << "\n";
      body_ << "  " << a << " = add i64 " << m << ", " << i.v << "\n";
      flat = a;
    }
  }
  std::string p = Tmp();
  body_ << "  " << p << " = getelementptr inbounds " << MemType(b->dtype) << ", ptr " << it->second.v
        << ", i64 " << flat << "\n";
  return p;
}

std::string CodeGenLLVM::ContiguousPtr(const Buffer& b, const Array<PrimExpr>& idx) {
  if (idx.size() != 1) return "";
  const RampNode* r = idx[0].as<RampNode>();
  if (r == nullptr) return "";
  const int64_t* st = AsConstInt(r->stride);
  if (st == nullptr || *st != 1) return "";
  Val base = Cast(Expr(r->base), Int(64));
  std::string p = Tmp();
  body_ << "  " << p << " = getelementptr inbounds " << MemType(b->dtype) << ", ptr " << BufferData(b).v
        << ", i64 " << base.v << "\n";
  return p;
}

std::vector<std::string> CodeGenLLVM::LanePtrs(const Buffer& b, const Array<PrimExpr>& idx, int lanes) {
  if (idx.size() != 1) TVM_FFI_THROW(ValueError) << "codegen: vector access to an unflattened buffer";
  Val vi = Expr(idx[0]);
  std::vector<std::string> out;
  for (int k = 0; k < lanes; ++k) {
    Val lane = Emit("extractelement " + LLType(vi.t) + " " + vi.v + ", i32 " + std::to_string(k), ElementOf(vi.t));
    Val i64 = Cast(lane, Int(64));
    std::string p = Tmp();
    body_ << "  " << p << " = getelementptr inbounds " << MemType(b->dtype) << ", ptr " << BufferData(b).v
          << ", i64 " << i64.v << "\n";
    out.push_back(p);
  }
  return out;
}

Val CodeGenLLVM::VectorLoad(const BufferLoadNode* n, DataType t) {
  std::string mt = MemType(t);
  std::string align = std::to_string(ElemAlign(n->buffer->dtype));
  std::string p = ContiguousPtr(n->buffer, n->indices);
  Val v;
  if (!p.empty()) {
    v = Emit("load " + mt + ", ptr " + p + ", align " + align + AliasTags(n->buffer), t);
  } else {
    std::vector<std::string> ptrs = LanePtrs(n->buffer, n->indices, t.lanes);
    std::string et = MemType(ElementOf(t));
    std::string acc = "poison";
    for (int k = 0; k < t.lanes; ++k) {
      Val x = Emit("load " + et + ", ptr " + ptrs[k] + ", align " + align + AliasTags(n->buffer), ElementOf(t));
      Val ins = Emit("insertelement " + mt + " " + acc + ", " + et + " " + x.v + ", i32 " + std::to_string(k), t);
      acc = ins.v;
    }
    v = Val{acc, t};
  }
  if (IsBool(t)) return Emit("trunc " + mt + " " + v.v + " to " + LLType(t), t);
  return v;
}

void CodeGenLLVM::VectorStore(const BufferStoreNode* n, Val v) {
  DataType t = v.t;
  std::string mt = MemType(t);
  std::string align = std::to_string(ElemAlign(n->buffer->dtype));
  if (IsBool(t)) v = Emit("zext " + LLType(t) + " " + v.v + " to " + mt, t);
  std::string p = ContiguousPtr(n->buffer, n->indices);
  if (!p.empty()) {
    body_ << "  store " << mt << " " << v.v << ", ptr " << p << ", align " << align << AliasTags(n->buffer) << "\n";
    return;
  }
  std::vector<std::string> ptrs = LanePtrs(n->buffer, n->indices, t.lanes);
  std::string et = MemType(ElementOf(t));
  for (int k = 0; k < t.lanes; ++k) {
    Val x = Emit("extractelement " + mt + " " + v.v + ", i32 " + std::to_string(k), ElementOf(t));
    body_ << "  store " << et << " " << x.v << ", ptr " << ptrs[k] << ", align " << align << AliasTags(n->buffer)
          << "\n";
  }
}

}  // namespace codegen
}  // namespace tvm
