/*
 * CodeGenLLVM: lowers TIR statements and expressions to opaque-pointer LLVM IR text. It knows
 * no calling convention and no runtime: a target's code generator derives from it, says how a
 * function starts and ends, and overrides the hooks where targets differ:
 *
 *   codegen_cpu.h/.cc   host functions in the tvm-ffi packed calling convention, assertions,
 *                       parallel loops through the runtime's thread pool, packed calls;
 *   codegen_nvptx.cc    CUDA kernels: thread-bound loops, shared memory, libdevice math.
 *
 * The emitter itself is split by concept: codegen_llvm.cc (types, module and function text,
 * statements, buffer access) and codegen_llvm_expr.cc (expressions, casts, math). The text it
 * writes is part of the contract (tests compare it byte for byte): keep the order in which
 * temporaries, labels and declarations are made. Internal to libtvm_compiler.
 */
#ifndef TVM_COMPILER_CODEGEN_CODEGEN_LLVM_H_
#define TVM_COMPILER_CODEGEN_CODEGEN_LLVM_H_

#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/tir/ir.h>

#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tvm {
namespace codegen {

/*! \brief An SSA value or constant (`v`, LLVM text) of TIR type `t`. */
struct Val {
  std::string v;
  DataType t;
};

/*! \brief The LLVM type of a value of `t` (bool is i1; vectors are <n x T>). */
std::string LLType(DataType t);
/*! \brief Storage type in memory (bool is a byte). */
std::string MemType(DataType t);
/*! \brief A float constant as LLVM's exact hex form (float32 rounded to float first). */
std::string FloatLiteral(DataType t, double v);
/*! \brief `s` escaped for a c"..." string constant. */
std::string Escape(const std::string& s);
/*! \brief " flag1 flag2" from "flag1,flag2" (CodeGenLLVM::fast_math_); ValueError naming a
 * word that is not an LLVM fast-math flag. */
std::string FastMathFlags(const std::string& list);

class CodeGenLLVM {
 public:
  virtual ~CodeGenLLVM() = default;
  /*! \brief LLVM fast-math flags put on every floating-point add/sub/mul/div/rem, with a
   * leading space (e.g. " contract"); empty by default: IEEE semantics, no FMA contraction. */
  std::string fast_math_;

 protected:
  // ---- module text (codegen_llvm.cc) ----
  /*! \brief Declares an external function once (`sig` is its `declare` line). */
  void Declare(const std::string& name, const std::string& sig);
  /*! \brief A private global holding `s` (NUL-terminated), made once per distinct string. */
  std::string Str(const std::string& s);
  /*! \brief Fresh per-function state: body, entry-block allocas, temporaries, labels, vars. */
  void BeginFunction(const std::string& name);
  /*! \brief Appends `define <signature> {` with the entry allocas, the body and `epilogue`. */
  void EndFunction(const std::string& signature, const std::string& epilogue);
  /*! \brief The whole module: `banner`, target triple (when given), globals, declarations,
   * functions, attributes and loop metadata. */
  std::string Assemble(const std::string& banner, const std::string& triple);

  // ---- statements and buffers (codegen_llvm.cc) ----
  virtual void Stmt(const tvm::Stmt& s);
  /*!
   * \brief Emits a parallel loop over [mn, mn + ext) and returns true, or returns false to
   * have it run as a serial loop (the default: a target without a thread pool).
   */
  virtual bool ParallelFor(const ForNode* n, const Val& mn, const Val& ext);
  /*! \brief `, !llvm.loop !N` for loop `n`: vectorize (kind 2), fully unroll (kind 3), or,
   *  for a serial loop TIR already vectorized inside, no unrolling (UnrollLeftToTIR). */
  std::string LoopMetadata(const ForNode* n);
  /*! \brief A load of `ty` from `ptr` + `offset` bytes. */
  std::string Load(const std::string& ty, const std::string& ptr, int64_t offset, int align);
  const Val& BufferData(const Buffer& b);
  /*! \brief The address of element `indices` (row-major over the shape, or by strides). */
  std::string Address(const Buffer& b, const Array<PrimExpr>& indices);
  /*! \brief Contiguous vector access: the (flattened) index is Ramp(base, 1, lanes); else "". */
  std::string ContiguousPtr(const Buffer& b, const Array<PrimExpr>& idx);
  /*! \brief Per-lane addresses of a gather/scatter. */
  std::vector<std::string> LanePtrs(const Buffer& b, const Array<PrimExpr>& idx, int lanes);
  /*!
   * \brief Gives each buffer of `body` that is fresh memory (an Allocate, or a workspace from
   * TVMBackendAllocWorkspace) an LLVM alias scope of its own, so that every load and store
   * says which fresh buffer it touches and which it does not (AliasTags). No other pointer
   * in the function can point into fresh memory, so an access to an argument's buffer never
   * aliases one; without this LLVM must assume every store to a workspace may change the
   * argument it reads next (it kept a partial row's store after each of four unrolled FMAs).
   * Buffers that are not fresh get no scope (they may alias one another). Per function;
   * the CPU code generator calls it after BeginFunction.
   */
  void ScopeFreshBuffers(const tvm::Stmt& body, const std::string& func_name);
  /*!
   * \brief ScopeFreshBuffers' last step: the scope metadata of the fresh buffers `fresh`
   * (data var, name; scope i each) and the tags of their accesses, of the let-bound pointers
   * `aliases` (var, index into `fresh`) and of every other access.
   */
  void EmitAliasScopes(const std::vector<std::pair<const Object*, std::string>>& fresh,
                       const std::vector<std::pair<const Object*, int>>& aliases, const std::string& func_name);
  /*! \brief `, !alias.scope !S, !noalias !N` for an access to `b` (see ScopeFreshBuffers). */
  std::string AliasTags(const Buffer& b) const;
  Val VectorLoad(const BufferLoadNode* n, DataType t);
  void VectorStore(const BufferStoreNode* n, Val v);
  static int ElemAlign(DataType t) { return IsBool(t) ? 1 : (t.bits + 7) / 8; }

  // ---- expressions (codegen_llvm_expr.cc) ----
  Val Expr(const PrimExpr& e);
  /*! \brief Intrinsic calls ("tir.exp", "tir.if_then_else", ...); targets add their own. */
  virtual Val Call(const CallNode* n, DataType t);
  /*! \brief A unary llvm.<name> intrinsic of x (exp, sqrt, floor, fabs, ...). */
  virtual Val Intrinsic(const std::string& name, const Val& x);
  /*! \brief `%tN = rhs`, a value of type t. */
  Val Emit(const std::string& rhs, DataType t);
  Val Cast(Val v, DataType to);
  Val Arith(const char* iop, const char* uop, const char* fop, const PrimExpr& a, const PrimExpr& b, DataType t);
  Val Cmp(const char* iop, const char* uop, const char* fop, const PrimExpr& a, const PrimExpr& b, DataType t);
  Val Cmp0(const std::string& op, const Val& x, const Val& y);
  Val Const(DataType t, double v);
  /*! \brief A constant vector of `scalar` with t.lanes lanes. */
  Val Splat(const std::string& scalar, DataType t);
  /*! \brief A vector of `lanes(t)` copies of the value x. */
  Val SplatValue(const Val& x, DataType t);
  // bfloat16 is only converted (see codegen_llvm_expr.cc).
  static bool IsBF16(DataType t) { return t.code == kDLBfloat && t.bits == 16; }
  static void RejectBF16(DataType t, const char* what);
  Val BF16ToFloat(const Val& v);
  Val FloatToBF16(const Val& f, DataType to);
  // float16 math runs in float32 (see codegen_llvm_expr.cc).
  static bool IsHalf(const Val& x) { return IsFloat(x.t) && x.t.bits == 16; }
  Val Widen(const Val& x);
  Val Narrow(const Val& y, DataType t);
  /*! \brief exp / erf / tanh of a float32 vector through the inlined polynomials of
   * vector_math.h (libm would run one scalar call per lane). */
  Val VectorMath(const std::string& op, const Val& x);
  /*! \brief A scalar libm function (float or double) of x; sigmoid as 1 / (1 + exp(-x)). */
  Val LibmCall(const std::string& op, const Val& x, DataType t);

  std::string Tmp() { return "%t" + std::to_string(tmp_++); }
  std::string Label(const std::string& base) { return base + "." + std::to_string(label_++); }

  // Module state.
  std::ostringstream globals_;
  std::map<std::string, std::string> declared_;  // sorted: the declarations' order is stable
  std::ostringstream funcs_;
  std::ostringstream metadata_;
  std::unordered_map<std::string, std::string> strings_;
  int md_count_{0};
  // Function state (BeginFunction resets it).
  std::ostringstream body_, allocas_;
  std::unordered_map<const Object*, Val> vars_;
  /*! \brief Alias tags of the fresh buffers' data vars, and of every other access. */
  std::unordered_map<const Object*, std::string> fresh_tags_;
  std::string other_tags_;
  /*! \brief Integer ranges of loop and let variables seen so far: floordiv/floormod of a
   *  value they prove non-negative by a positive divisor is a plain udiv/urem (the signed
   *  floor form is nine instructions, ~15% of a conv kernel's IR, left to InstCombine). */
  arith::VarBounds bounds_;
  void BoundLoopVar(const ForNode* n);
  void BoundLetVar(const Var& v, const PrimExpr& value);
  /*! \brief a >= 0 and b > 0, both scalar signed integers, by bounds_. */
  bool NonNegativeByPositive(const PrimExpr& a, const PrimExpr& b) const;
  int tmp_{0}, label_{0};
  std::string func_name_;
};

}  // namespace codegen
}  // namespace tvm
#endif  // TVM_COMPILER_CODEGEN_CODEGEN_LLVM_H_
