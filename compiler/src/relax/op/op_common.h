/*
 * Helpers shared by the inference rules of the nn / index / creation operators: integer-list
 * attributes, layouts (a permutation of the canonical "NCHW"-like string), symbolic arithmetic
 * on int64 dimensions.
 */
#ifndef TVM_RELAX_OP_OP_COMMON_H_
#define TVM_RELAX_OP_OP_COMMON_H_

#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/relax/op.h>

#include <string>
#include <vector>

namespace tvm {
namespace relax {

/*! \brief attrs[key] as a list of ints (a lone int becomes a 1-list); `fallback` when absent. */
inline std::vector<int64_t> IntsAttr(const CallNode* call, const char* key, std::vector<int64_t> fallback = {}) {
  std::optional<Any> v = call->attrs.Get(String(key));
  if (!v.has_value() || v->type_index() == kTVMFFINone) return fallback;
  if (v->type_index() == kTVMFFIInt) return {v->cast<int64_t>()};
  std::vector<int64_t> out;
  for (const Any& a : v->cast<Array<Any>>()) out.push_back(a.cast<int64_t>());
  return out;
}

/*! \brief True when attrs[key] is present and not None. */
inline bool HasAttr(const CallNode* call, const char* key) {
  std::optional<Any> v = call->attrs.Get(String(key));
  return v.has_value() && v->type_index() != kTVMFFINone;
}

inline std::string StrAttr(const CallNode* call, const char* key, const std::string& fallback) {
  std::optional<Any> v = call->attrs.Get(String(key));
  if (!v.has_value() || v->type_index() == kTVMFFINone) return fallback;
  return std::string(v->cast<String>());
}

/*! \brief A dimension for messages: its value when constant, else "?" (symbolic). */
inline std::string DimStr(const PrimExpr& d) {
  const int64_t* c = AsConstInt(d);
  return c ? std::to_string(*c) : std::string("(symbolic)");
}

inline PrimExpr Simp(const PrimExpr& e) { return arith::Simplify(e, {}); }
inline PrimExpr Add(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Add", MakeCast(Int(64), a), MakeCast(Int(64), b)); }
inline PrimExpr Sub(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Sub", MakeCast(Int(64), a), MakeCast(Int(64), b)); }
inline PrimExpr Mul(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Mul", MakeCast(Int(64), a), MakeCast(Int(64), b)); }
inline PrimExpr FloorDiv(PrimExpr a, PrimExpr b) {
  return MakeBinary("tir.FloorDiv", MakeCast(Int(64), a), MakeCast(Int(64), b));
}
inline PrimExpr Min(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Min", MakeCast(Int(64), a), MakeCast(Int(64), b)); }
inline PrimExpr Max(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Max", MakeCast(Int(64), a), MakeCast(Int(64), b)); }

/*!
 * \brief For each letter of `canonical`, its position in `layout`; ValueError naming `op` when
 * `layout` is not a permutation of `canonical`.
 */
inline std::vector<int> LayoutPerm(const std::string& layout, const std::string& canonical, const std::string& op,
                                   const char* what) {
  std::vector<int> pos;
  bool ok = layout.size() == canonical.size();
  for (char c : canonical) {
    size_t p = layout.find(c);
    ok = ok && p != std::string::npos;
    pos.push_back(ok ? static_cast<int>(p) : 0);
  }
  if (!ok) {
    TVM_FFI_THROW(ValueError) << op << ": unsupported " << what << " \"" << layout << "\" (expected a permutation of \""
                              << canonical << "\")";
  }
  return pos;
}

/*! \brief The shape in `layout` as a canonical-order shape. */
inline Array<PrimExpr> ToCanonical(const Array<PrimExpr>& shape, const std::vector<int>& perm) {
  Array<PrimExpr> out;
  for (int p : perm) out.push_back(shape[p]);
  return out;
}

/*! \brief A canonical-order shape laid out in `layout` (perm from LayoutPerm of that layout). */
inline Array<PrimExpr> FromCanonical(const Array<PrimExpr>& canon, const std::vector<int>& perm) {
  std::vector<PrimExpr> out(canon.size());
  for (size_t k = 0; k < perm.size(); ++k) out[perm[k]] = canon[k];
  return Array<PrimExpr>(out.begin(), out.end());
}

/*! \brief `v` extended to `n` values (one value repeated), ValueError for another length. */
inline std::vector<int64_t> Expand(std::vector<int64_t> v, size_t n, const std::string& op, const char* what) {
  if (v.size() == 1 && n > 1) v = std::vector<int64_t>(n, v[0]);
  if (v.size() != n) TVM_FFI_THROW(ValueError) << op << ": " << what << " must have " << n << " values, got " << v.size();
  return v;
}

/*! \brief Padding of `nsp` spatial dims as (before..., after...): 1, nsp or 2*nsp values. */
inline std::vector<int64_t> Padding(const CallNode* call, size_t nsp, const std::string& op) {
  std::vector<int64_t> p = IntsAttr(call, "padding", std::vector<int64_t>(2 * nsp, 0));
  if (p.size() == 1) p = std::vector<int64_t>(2 * nsp, p[0]);
  if (p.size() == nsp) {
    std::vector<int64_t> q(p);
    q.insert(q.end(), p.begin(), p.end());
    p = q;
  }
  if (p.size() != 2 * nsp) {
    TVM_FFI_THROW(ValueError) << op << ": padding must have 1, " << nsp << " or " << 2 * nsp << " values, got " << p.size();
  }
  for (int64_t v : p) {
    if (v < 0) TVM_FFI_THROW(ValueError) << op << ": padding must be non-negative";
  }
  return p;
}

inline DataType DTypeAttr(const CallNode* call, const char* key, DataType fallback) {
  std::optional<Any> v = call->attrs.Get(String(key));
  if (!v.has_value() || v->type_index() == kTVMFFINone) return fallback;
  return v->cast<DataType>();
}

}  // namespace relax
}  // namespace tvm

#endif  // TVM_RELAX_OP_OP_COMMON_H_
