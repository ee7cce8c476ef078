/*
 * The Relax operator registry: each operator ("relax.add", "relax.nn.conv2d", ...) has
 * its struct-info inference rule here in C++ (so normalization needs no Python), and an
 * op pattern for fusion (TVM's OpPatternKind). Legalization to TE is registered from Python
 * (tvm.relax.transform.legalize_ops), which owns TE.
 *
 *   TVM_RELAX_REGISTER_OP("relax.add", kElemWise, InferBinaryBroadcast);
 *
 * Inference rules throw ValueError/TypeError naming the operator on bad input (ranks, dtypes,
 * shapes that are provably incompatible).
 */
#ifndef TVM_RELAX_OP_H_
#define TVM_RELAX_OP_H_

#include <tvm/relax/expr.h>

#include <functional>
#include <string>
#include <vector>

namespace tvm {
namespace relax {

/*! \brief TVM's OpPatternKind: how an operator's loops compose with its neighbours'. */
enum OpPattern : int {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};

using FInferStructInfo = std::function<StructInfo(const CallNode* call)>;

struct OpInfo {
  std::string name;
  OpPattern pattern{kOpaque};
  FInferStructInfo infer;
  int num_inputs{-1};  // -1: variadic
};

/*! \brief Registers an operator (at load time; a clash aborts loudly). */
void RegisterOp(OpInfo info);
/*! \brief The operator `name`, or nullptr. */
const OpInfo* FindOp(const std::string& name);
/*! \brief Every registered operator name, sorted. */
std::vector<std::string> ListOps();

// ---- helpers shared by inference rules -------------------------------------------------

/*! \brief The TensorStructInfo of argument `i`, or TypeError naming the operator. */
const TensorStructInfoNode* TensorArg(const CallNode* call, size_t i);
/*! \brief attrs[key] as T, or `fallback` when absent. */
template <typename T>
T AttrOr(const CallNode* call, const char* key, T fallback) {
  std::optional<Any> v = call->attrs.Get(String(key));
  return v.has_value() && v->type_index() != kTVMFFINone ? v->cast<T>() : fallback;
}
/*! \brief The operator's name, for messages. */
std::string OpName(const CallNode* call);
/*! \brief a == b when provable; false when provably different; `unknown` otherwise. */
int ProveEqual(const PrimExpr& a, const PrimExpr& b);  // 1 equal, 0 different, -1 unknown
/*! \brief Broadcast of two shapes (numpy rules), ValueError when provably incompatible. */
Array<PrimExpr> BroadcastShapes(const Array<PrimExpr>& a, const Array<PrimExpr>& b, const std::string& op);
/*! \brief Normalizes a possibly negative axis against `ndim`; ValueError out of range. */
int64_t NormalizeAxis(int64_t axis, int64_t ndim, const std::string& op);
/*! \brief int64 constant PrimExpr. */
PrimExpr I64(int64_t v);

}  // namespace relax
}  // namespace tvm

#define TVM_RELAX_REGISTER_OP(Name, Pattern, Infer, NumInputs) \
  ::tvm::relax::RegisterOp(::tvm::relax::OpInfo{Name, Pattern, Infer, NumInputs})

#endif  // TVM_RELAX_OP_H_
