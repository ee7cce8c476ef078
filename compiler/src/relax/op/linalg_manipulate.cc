/*
 * matmul (numpy semantics: batched, broadcast batch dims, 1-d operands promoted), and the
 * shape operators whose output shape is computed at compile time: reshape, permute_dims,
 * expand_dims, squeeze, flatten, concat.
 */
#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/relax/op.h>

#include <algorithm>

namespace tvm {
namespace relax {
namespace {

PrimExpr Prod(const Array<PrimExpr>& dims, size_t begin, size_t end) {
  PrimExpr p = I64(1);
  for (size_t k = begin; k < end; ++k) p = MakeBinary("tir.Mul", p, dims[k]);
  return arith::Simplify(p, {});
}

/*!
 * \brief prod(num) / prod(den) for the -1 of a reshape: symbolic factors cancel against equal
 * ones (n*4 / n = 4), constants divide exactly; otherwise a floor division is left.
 */
PrimExpr DivideDims(const Array<PrimExpr>& num, const std::vector<PrimExpr>& den) {
  std::vector<PrimExpr> left(num.begin(), num.end());
  int64_t cnum = 1, cden = 1;
  std::vector<PrimExpr> rest_den;
  for (const PrimExpr& d : den) {
    bool done = false;
    for (size_t i = 0; i < left.size() && !done; ++i) {
      if (ProveEqual(left[i], d) == 1) {
        left.erase(left.begin() + static_cast<long>(i));
        done = true;
      }
    }
    if (!done) rest_den.push_back(d);
  }
  std::vector<PrimExpr> sym;
  for (const PrimExpr& d : left) {
    if (const int64_t* c = AsConstInt(d)) cnum *= *c;
    else sym.push_back(d);
  }
  std::vector<PrimExpr> sym_den;
  for (const PrimExpr& d : rest_den) {
    if (const int64_t* c = AsConstInt(d)) cden *= *c;
    else sym_den.push_back(d);
  }
  if (sym_den.empty() && cden != 0 && cnum % cden == 0) {
    PrimExpr p = I64(cnum / cden);
    for (const PrimExpr& d : sym) p = MakeBinary("tir.Mul", p, d);
    return arith::Simplify(p, {});
  }
  PrimExpr n = I64(cnum), dd = I64(cden);
  for (const PrimExpr& d : sym) n = MakeBinary("tir.Mul", n, d);
  for (const PrimExpr& d : sym_den) dd = MakeBinary("tir.Mul", dd, d);
  return arith::Simplify(MakeBinary("tir.FloorDiv", n, dd), {});
}

StructInfo InferMatmul(const CallNode* call) {
  const TensorStructInfoNode* a = TensorArg(call, 0);
  const TensorStructInfoNode* b = TensorArg(call, 1);
  DataType dt = AttrOr<DataType>(call, "out_dtype", IsUnknownDType(a->dtype) ? b->dtype : a->dtype);
  if (!IsUnknownDType(a->dtype) && !IsUnknownDType(b->dtype) && !(a->dtype == b->dtype)) {
    TVM_FFI_THROW(TypeError) << "relax.matmul: operand dtypes differ (" << DTypeToString(a->dtype) << " vs "
                             << DTypeToString(b->dtype) << ")";
  }
  if (a->ndim == 0 || b->ndim == 0) TVM_FFI_THROW(ValueError) << "relax.matmul: operands must have at least 1 dimension";
  if (!a->shape_known || !b->shape_known) {
    int64_t nd = (a->ndim < 0 || b->ndim < 0) ? -1 : std::max(a->ndim, b->ndim) - (a->ndim == 1) - (b->ndim == 1);
    return TensorSInfoUnknown(dt, nd);
  }
  Array<PrimExpr> as = a->shape, bs = b->shape;
  bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as = {I64(1), as[0]};
  if (b1) bs = {bs[0], I64(1)};
  PrimExpr ka = as[as.size() - 1], kb = bs[bs.size() - 2];
  if (ProveEqual(ka, kb) == 0) {
    TVM_FFI_THROW(ValueError) << "relax.matmul: reduction dimensions differ";
  }
  Array<PrimExpr> batch_a(as.begin(), as.end() - 2), batch_b(bs.begin(), bs.end() - 2);
  Array<PrimExpr> out = BroadcastShapes(batch_a, batch_b, "relax.matmul");
  if (!a1) out.push_back(as[as.size() - 2]);
  if (!b1) out.push_back(bs[bs.size() - 1]);
  return TensorSInfo(out, dt);
}

StructInfo InferReshape(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  if (call->args.size() != 2) TVM_FFI_THROW(ValueError) << "relax.reshape expects (data, shape)";
  StructInfo s = GetStructInfo(call->args[1]);
  auto* ss = s.as<ShapeStructInfoNode>();
  if (ss == nullptr) TVM_FFI_THROW(TypeError) << "relax.reshape: the new shape must be a shape";
  if (!ss->known) return TensorSInfoUnknown(t->dtype, ss->ndim);
  Array<PrimExpr> out = ss->values;
  // -1 is inferred from the element count (the frontends pass it through).
  int infer = -1;
  for (size_t k = 0; k < out.size(); ++k) {
    PrimExpr d = out[k];
    const int64_t* c = AsConstInt(d);
    if (c && *c == -1) {
      if (infer >= 0) TVM_FFI_THROW(ValueError) << "relax.reshape: more than one -1";
      infer = static_cast<int>(k);
    }
  }
  if (t->shape_known) {
    PrimExpr total = Prod(t->shape, 0, t->shape.size());
    if (infer >= 0) {
      std::vector<PrimExpr> others;
      for (size_t k = 0; k < out.size(); ++k) {
        if (static_cast<int>(k) != infer) others.push_back(out[k]);
      }
      out.Set(infer, DivideDims(t->shape, others));
    } else if (ProveEqual(DivideDims(t->shape, std::vector<PrimExpr>(out.begin(), out.end())), I64(1)) == 0 ||
               ProveEqual(total, Prod(out, 0, out.size())) == 0) {
      TVM_FFI_THROW(ValueError) << "relax.reshape: the new shape has a different number of elements";
    }
  } else if (infer >= 0) {
    return TensorSInfoUnknown(t->dtype, static_cast<int64_t>(out.size()));
  }
  return TensorSInfo(out, t->dtype);
}

StructInfo InferPermuteDims(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  std::optional<Any> ax = call->attrs.Get(String("axes"));
  if (t->ndim < 0) return TensorSInfoUnknown(t->dtype, -1);
  std::vector<int64_t> axes;
  if (ax.has_value() && ax->type_index() != kTVMFFINone) {
    for (const Any& a : ax->cast<Array<Any>>()) axes.push_back(NormalizeAxis(a.cast<int64_t>(), t->ndim, "relax.permute_dims"));
  } else {
    for (int64_t k = t->ndim - 1; k >= 0; --k) axes.push_back(k);
  }
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t k = 0; k < static_cast<int64_t>(sorted.size()); ++k) {
    if (sorted.size() != static_cast<size_t>(t->ndim) || sorted[k] != k) {
      TVM_FFI_THROW(ValueError) << "relax.permute_dims: axes are not a permutation of the " << t->ndim << " dimensions";
    }
  }
  if (!t->shape_known) return TensorSInfoUnknown(t->dtype, t->ndim);
  Array<PrimExpr> out;
  for (int64_t a : axes) out.push_back(t->shape[a]);
  return TensorSInfo(out, t->dtype);
}

std::vector<int64_t> AxesAttr(const CallNode* call, int64_t ndim, const char* key) {
  std::vector<int64_t> out;
  std::optional<Any> ax = call->attrs.Get(String(key));
  if (!ax.has_value() || ax->type_index() == kTVMFFINone) return out;
  if (ax->type_index() == kTVMFFIInt) {
    out.push_back(NormalizeAxis(ax->cast<int64_t>(), ndim, OpName(call)));
  } else {
    for (const Any& a : ax->cast<Array<Any>>()) out.push_back(NormalizeAxis(a.cast<int64_t>(), ndim, OpName(call)));
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) TVM_FFI_THROW(ValueError) << OpName(call) << ": repeated axis";
  return out;
}

StructInfo InferExpandDims(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  if (t->ndim < 0) return TensorSInfoUnknown(t->dtype, -1);
  std::optional<Any> ax = call->attrs.Get(String("axis"));
  size_t count = ax.has_value() && ax->type_index() != kTVMFFIInt ? ax->cast<Array<Any>>().size() : 1;
  int64_t nd = t->ndim + static_cast<int64_t>(count);
  std::vector<int64_t> axes = AxesAttr(call, nd, "axis");
  if (!t->shape_known) return TensorSInfoUnknown(t->dtype, nd);
  Array<PrimExpr> out;
  size_t src = 0;
  for (int64_t k = 0; k < nd; ++k) {
    if (std::find(axes.begin(), axes.end(), k) != axes.end()) out.push_back(I64(1));
    else out.push_back(t->shape[src++]);
  }
  return TensorSInfo(out, t->dtype);
}

StructInfo InferSqueeze(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  if (!t->shape_known) return TensorSInfoUnknown(t->dtype, -1);
  std::vector<int64_t> axes = AxesAttr(call, t->ndim, "axis");
  Array<PrimExpr> out;
  for (int64_t k = 0; k < t->ndim; ++k) {
    PrimExpr d = t->shape[k];
    const int64_t* c = AsConstInt(d);
    bool listed = std::find(axes.begin(), axes.end(), k) != axes.end();
    if (listed && (c == nullptr || *c != 1)) {
      TVM_FFI_THROW(ValueError) << "relax.squeeze: dimension " << k << " is not 1";
    }
    if (listed || (axes.empty() && c != nullptr && *c == 1)) continue;
    out.push_back(t->shape[k]);
  }
  return TensorSInfo(out, t->dtype);
}

StructInfo InferFlatten(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  if (!t->shape_known) return TensorSInfoUnknown(t->dtype, 1);
  return TensorSInfo({Prod(t->shape, 0, t->shape.size())}, t->dtype);
}

StructInfo InferConcat(const CallNode* call) {
  if (call->args.size() != 1) TVM_FFI_THROW(ValueError) << "relax.concat expects one tuple of tensors";
  StructInfo s = GetStructInfo(call->args[0]);
  auto* tup = s.as<TupleStructInfoNode>();
  if (tup == nullptr || tup->fields.empty()) TVM_FFI_THROW(TypeError) << "relax.concat expects a non-empty tuple of tensors";
  std::vector<const TensorStructInfoNode*> ts;
  for (const StructInfo& f : tup->fields) {
    auto* t = f.as<TensorStructInfoNode>();
    if (t == nullptr) TVM_FFI_THROW(TypeError) << "relax.concat: every field must be a tensor";
    ts.push_back(t);
  }
  DataType dt = ts[0]->dtype;
  for (auto* t : ts) {
    if (!(t->dtype == dt)) TVM_FFI_THROW(TypeError) << "relax.concat: tensors have different dtypes";
    if (!t->shape_known) return TensorSInfoUnknown(dt, ts[0]->ndim);
    if (t->ndim != ts[0]->ndim) TVM_FFI_THROW(ValueError) << "relax.concat: tensors have different ranks";
  }
  int64_t axis = NormalizeAxis(AttrOr<int64_t>(call, "axis", 0), ts[0]->ndim, "relax.concat");
  Array<PrimExpr> out = ts[0]->shape;
  PrimExpr sum = I64(0);
  for (auto* t : ts) {
    for (int64_t k = 0; k < t->ndim; ++k) {
      if (k != axis && ProveEqual(t->shape[k], out[k]) == 0) {
        TVM_FFI_THROW(ValueError) << "relax.concat: dimension " << k << " differs between inputs";
      }
    }
    sum = MakeBinary("tir.Add", sum, t->shape[axis]);
  }
  out.Set(axis, arith::Simplify(sum, {}));
  return TensorSInfo(out, dt);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.matmul", kOutEWiseFusable, InferMatmul, 2);
  TVM_RELAX_REGISTER_OP("relax.reshape", kInjective, InferReshape, 2);
  TVM_RELAX_REGISTER_OP("relax.permute_dims", kInjective, InferPermuteDims, 1);
  TVM_RELAX_REGISTER_OP("relax.expand_dims", kInjective, InferExpandDims, 1);
  TVM_RELAX_REGISTER_OP("relax.squeeze", kInjective, InferSqueeze, 1);
  TVM_RELAX_REGISTER_OP("relax.flatten", kInjective, InferFlatten, 1);
  TVM_RELAX_REGISTER_OP("relax.concat", kInjective, InferConcat, 1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
