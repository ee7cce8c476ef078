/*
 * Indexing and data-movement operators: split (a tuple), strided_slice (negative indices and
 * strides, numpy slice semantics), take, gather_elements, gather_nd, broadcast_to, tile, and
 * nn.pad (constant / reflect / replicate / circular).
 */
#include "op_common.h"

#include <algorithm>
#include <limits>

namespace tvm {
namespace relax {
namespace {

StructInfo InferSplit(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  std::optional<Any> ios = call->attrs.Get(String("indices_or_sections"));
  if (!ios.has_value() || ios->type_index() == kTVMFFINone) TVM_FFI_THROW(ValueError) << op << " needs indices_or_sections";
  bool sections = ios->type_index() == kTVMFFIInt;
  std::vector<int64_t> idx = IntsAttr(call, "indices_or_sections");
  size_t nout = sections ? static_cast<size_t>(idx[0]) : idx.size() + 1;
  if (sections && idx[0] <= 0) TVM_FFI_THROW(ValueError) << op << ": the number of sections must be positive";
  if (x->ndim < 0) {
    return TupleSInfo(Array<StructInfo>(std::vector<StructInfo>(nout, TensorSInfoUnknown(x->dtype, -1))));
  }
  int64_t axis = NormalizeAxis(AttrOr<int64_t>(call, "axis", 0), x->ndim, op);
  if (!x->shape_known) {
    return TupleSInfo(Array<StructInfo>(std::vector<StructInfo>(nout, TensorSInfoUnknown(x->dtype, x->ndim))));
  }
  PrimExpr dim = x->shape[axis];
  std::vector<StructInfo> outs;
  if (sections) {
    if (const int64_t* c = AsConstInt(dim)) {
      if (*c % idx[0] != 0) {
        TVM_FFI_THROW(ValueError) << op << ": axis " << axis << " of length " << *c << " does not split into " << idx[0]
                                  << " equal sections";
      }
    }
    PrimExpr part = Simp(FloorDiv(dim, I64(idx[0])));
    Array<PrimExpr> s = x->shape;
    s.Set(axis, part);
    for (size_t k = 0; k < nout; ++k) outs.push_back(TensorSInfo(s, x->dtype));
  } else {
    for (int64_t v : idx) {
      if (v < 0) TVM_FFI_THROW(ValueError) << op << ": split indices must be non-negative";
    }
    PrimExpr prev = I64(0);
    for (size_t k = 0; k < nout; ++k) {
      PrimExpr end = k < idx.size() ? Min(I64(idx[k]), dim) : dim;
      Array<PrimExpr> s = x->shape;
      s.Set(axis, Simp(Max(Sub(end, prev), I64(0))));
      outs.push_back(TensorSInfo(s, x->dtype));
      prev = k < idx.size() ? Max(prev, end) : prev;
    }
  }
  return TupleSInfo(Array<StructInfo>(outs.begin(), outs.end()));
}

/*! \brief attrs[key] as int64 PrimExprs (ints, or symbolic values such as a shape's var). */
std::vector<PrimExpr> ExprsAttr(const CallNode* call, const char* key) {
  std::vector<PrimExpr> out;
  std::optional<Any> v = call->attrs.Get(String(key));
  if (!v.has_value() || v->type_index() == kTVMFFINone) return out;
  for (const Any& a : v->cast<Array<Any>>()) {
    if (a.type_index() == kTVMFFIInt) out.push_back(I64(a.cast<int64_t>()));
    else out.push_back(MakeCast(Int(64), a.cast<PrimExpr>()));
  }
  return out;
}

/*!
 * \brief Length of x[begin:end:stride] along a dim of length `dim` (python slice semantics; a
 * symbolic begin/end is taken as non-negative).
 */
PrimExpr SliceLength(PrimExpr dim, PrimExpr begin, PrimExpr end, int64_t stride) {
  auto norm = [&](const PrimExpr& v, int64_t lo_off) -> PrimExpr {
    // stride > 0: clamp to [0, dim]; stride < 0: clamp to [-1, dim - 1]
    PrimExpr lo = I64(lo_off), hi = Add(dim, I64(lo_off));
    const int64_t* c = AsConstInt(v);
    bool dim_known = AsConstInt(dim) != nullptr;
    if (c && *c < 0) return Max(Add(dim, v), lo);
    if (c && *c >= std::numeric_limits<int32_t>::max()) return hi;  // "to the end"
    if (c == nullptr || !dim_known) return v;  // symbolic value or dim: taken as in bounds
    return Min(v, hi);
  };
  PrimExpr len;
  if (stride > 0) {
    PrimExpr b = norm(begin, 0), e = norm(end, 0);
    len = Simp(FloorDiv(Add(Sub(e, b), I64(stride - 1)), I64(stride)));
  } else {
    PrimExpr b = norm(begin, -1), e = norm(end, -1);
    len = Simp(FloorDiv(Add(Sub(b, e), I64(-stride - 1)), I64(-stride)));
  }
  // empty when negative (constant); a symbolic length is taken as is (in-bounds slices)
  const int64_t* c = AsConstInt(len);
  return c ? I64(*c > 0 ? *c : 0) : len;
}

StructInfo InferStridedSlice(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  std::vector<int64_t> axes = IntsAttr(call, "axes");
  std::vector<PrimExpr> begin = ExprsAttr(call, "begin"), end = ExprsAttr(call, "end");
  std::vector<int64_t> strides = IntsAttr(call, "strides", std::vector<int64_t>(axes.size(), 1));
  if (begin.size() != axes.size() || end.size() != axes.size() || strides.size() != axes.size()) {
    TVM_FFI_THROW(ValueError) << op << ": axes, begin, end and strides must have the same length";
  }
  for (int64_t s : strides) {
    if (s == 0) TVM_FFI_THROW(ValueError) << op << ": strides must be non-zero";
  }
  if (x->ndim < 0) return TensorSInfoUnknown(x->dtype, -1);
  std::vector<int64_t> seen;
  for (int64_t& a : axes) {
    a = NormalizeAxis(a, x->ndim, op);
    if (std::find(seen.begin(), seen.end(), a) != seen.end()) TVM_FFI_THROW(ValueError) << op << ": repeated axis " << a;
    seen.push_back(a);
  }
  if (!x->shape_known) return TensorSInfoUnknown(x->dtype, x->ndim);
  Array<PrimExpr> out = x->shape;
  for (size_t k = 0; k < axes.size(); ++k) out.Set(axes[k], SliceLength(x->shape[axes[k]], begin[k], end[k], strides[k]));
  return TensorSInfo(out, x->dtype);
}

void CheckIntIndices(const TensorStructInfoNode* t, const std::string& op) {
  if (!IsUnknownDType(t->dtype) && !IsIntOrUInt(t->dtype)) {
    TVM_FFI_THROW(TypeError) << op << ": indices must be integers, got " << DTypeToString(t->dtype);
  }
}

StructInfo InferTake(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* ind = TensorArg(call, 1);
  CheckIntIndices(ind, op);
  std::string mode = StrAttr(call, "mode", "fast");
  if (mode != "fast" && mode != "clip" && mode != "wrap" && mode != "nan") {
    TVM_FFI_THROW(ValueError) << op << ": mode must be fast, clip, wrap or nan, got " << mode;
  }
  bool has_axis = HasAttr(call, "axis");
  if (!has_axis && x->ndim >= 0 && x->ndim != 1) {
    TVM_FFI_THROW(ValueError) << op << ": without an axis the data must be 1-d, got " << x->ndim << "-d";
  }
  if (x->ndim == 0) TVM_FFI_THROW(ValueError) << op << ": the data must have at least one dimension";
  if (x->ndim < 0 || ind->ndim < 0) return TensorSInfoUnknown(x->dtype, -1);
  int64_t axis = has_axis ? NormalizeAxis(AttrOr<int64_t>(call, "axis", 0), x->ndim, op) : 0;
  if (!x->shape_known || !ind->shape_known) return TensorSInfoUnknown(x->dtype, x->ndim - 1 + ind->ndim);
  Array<PrimExpr> out;
  for (int64_t k = 0; k < axis; ++k) out.push_back(x->shape[k]);
  for (const PrimExpr& d : ind->shape) out.push_back(d);
  for (int64_t k = axis + 1; k < x->ndim; ++k) out.push_back(x->shape[k]);
  return TensorSInfo(out, x->dtype);
}

StructInfo InferGatherElements(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* ind = TensorArg(call, 1);
  CheckIntIndices(ind, op);
  if (x->ndim >= 0 && ind->ndim >= 0 && x->ndim != ind->ndim) {
    TVM_FFI_THROW(ValueError) << op << ": data (" << x->ndim << "-d) and indices (" << ind->ndim << "-d) ranks differ";
  }
  if (x->ndim == 0) TVM_FFI_THROW(ValueError) << op << ": the data must have at least one dimension";
  if (x->ndim >= 0) NormalizeAxis(AttrOr<int64_t>(call, "axis", 0), x->ndim, op);
  return ind->shape_known ? TensorSInfo(ind->shape, x->dtype) : TensorSInfoUnknown(x->dtype, ind->ndim >= 0 ? ind->ndim : x->ndim);
}

StructInfo InferGatherND(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* ind = TensorArg(call, 1);
  CheckIntIndices(ind, op);
  int64_t b = AttrOr<int64_t>(call, "batch_dims", 0);
  if (b < 0) TVM_FFI_THROW(ValueError) << op << ": batch_dims must be non-negative";
  if (ind->ndim == 0) TVM_FFI_THROW(ValueError) << op << ": indices must have at least one dimension";
  if (!x->shape_known || !ind->shape_known) return TensorSInfoUnknown(x->dtype, -1);
  PrimExpr mdim = ind->shape[ind->ndim - 1];
  const int64_t* m = AsConstInt(mdim);
  if (m == nullptr) TVM_FFI_THROW(ValueError) << op << ": the last dimension of indices must be a constant";
  if (b + *m > x->ndim) {
    TVM_FFI_THROW(ValueError) << op << ": batch_dims + indices.shape[-1] = " << b + *m << " exceeds the data rank "
                              << x->ndim;
  }
  if (b >= ind->ndim) TVM_FFI_THROW(ValueError) << op << ": batch_dims must be smaller than the indices rank";
  for (int64_t k = 0; k < b; ++k) {
    if (ProveEqual(x->shape[k], ind->shape[k]) == 0) {
      TVM_FFI_THROW(ValueError) << op << ": batch dimension " << k << " differs between data and indices";
    }
  }
  Array<PrimExpr> out;
  for (int64_t k = 0; k < ind->ndim - 1; ++k) out.push_back(ind->shape[k]);
  for (int64_t k = b + *m; k < x->ndim; ++k) out.push_back(x->shape[k]);
  return TensorSInfo(out, x->dtype);
}

StructInfo InferBroadcastTo(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (call->args.size() != 2) TVM_FFI_THROW(ValueError) << op << " expects (x, shape)";
  StructInfo s = GetStructInfo(call->args[1]);
  auto* ss = s.as<ShapeStructInfoNode>();
  if (ss == nullptr) TVM_FFI_THROW(TypeError) << op << ": the target shape must be a shape";
  if (!ss->known) return TensorSInfoUnknown(x->dtype, ss->ndim);
  if (x->ndim > static_cast<int64_t>(ss->values.size())) {
    TVM_FFI_THROW(ValueError) << op << ": cannot broadcast a " << x->ndim << "-d tensor to " << ss->values.size()
                              << " dimensions";
  }
  if (x->shape_known) {
    size_t off = ss->values.size() - x->shape.size();
    for (size_t k = 0; k < x->shape.size(); ++k) {
      PrimExpr d = x->shape[k];
      const int64_t* c = AsConstInt(d);
      if (c && *c == 1) continue;
      if (ProveEqual(d, ss->values[off + k]) == 0) {
        TVM_FFI_THROW(ValueError) << op << ": dimension " << k << " of length " << DimStr(d) << " cannot broadcast to "
                                  << DimStr(ss->values[off + k]);
      }
    }
  }
  return TensorSInfo(ss->values, x->dtype);
}

StructInfo InferTile(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  std::vector<int64_t> reps = IntsAttr(call, "repeats");
  for (int64_t r : reps) {
    if (r < 0) TVM_FFI_THROW(ValueError) << op << ": repeats must be non-negative";
  }
  if (x->ndim < 0) return TensorSInfoUnknown(x->dtype, -1);
  int64_t nd = std::max<int64_t>(x->ndim, static_cast<int64_t>(reps.size()));
  if (!x->shape_known) return TensorSInfoUnknown(x->dtype, nd);
  Array<PrimExpr> out;
  for (int64_t k = 0; k < nd; ++k) {
    int64_t xi = k - (nd - x->ndim), ri = k - (nd - static_cast<int64_t>(reps.size()));
    PrimExpr d = xi >= 0 ? x->shape[xi] : I64(1);
    int64_t r = ri >= 0 ? reps[ri] : 1;
    out.push_back(Simp(Mul(d, I64(r))));
  }
  return TensorSInfo(out, x->dtype);
}

StructInfo InferPad(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  std::vector<int64_t> pw = IntsAttr(call, "pad_width");
  std::string mode = StrAttr(call, "pad_mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "replicate" && mode != "edge" && mode != "circular") {
    TVM_FFI_THROW(ValueError) << op << ": pad_mode must be constant, reflect, replicate or circular, got " << mode;
  }
  for (int64_t p : pw) {
    if (p < 0) TVM_FFI_THROW(ValueError) << op << ": pad widths must be non-negative";
  }
  if (x->ndim < 0) return TensorSInfoUnknown(x->dtype, -1);
  if (static_cast<int64_t>(pw.size()) != 2 * x->ndim) {
    TVM_FFI_THROW(ValueError) << op << ": pad_width must have 2 values (before, after) per dimension: " << 2 * x->ndim
                              << " for a " << x->ndim << "-d tensor, got " << pw.size();
  }
  if (!x->shape_known) return TensorSInfoUnknown(x->dtype, x->ndim);
  Array<PrimExpr> out;
  for (int64_t k = 0; k < x->ndim; ++k) {
    PrimExpr d = x->shape[k];
    const int64_t* c = AsConstInt(d);
    if (mode == "reflect" && c && (pw[2 * k] >= *c || pw[2 * k + 1] >= *c)) {
      TVM_FFI_THROW(ValueError) << op << ": reflect padding of dimension " << k << " must be smaller than its length " << *c;
    }
    out.push_back(Simp(Add(d, I64(pw[2 * k] + pw[2 * k + 1]))));
  }
  return TensorSInfo(out, x->dtype);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.split", kInjective, InferSplit, 1);
  TVM_RELAX_REGISTER_OP("relax.strided_slice", kInjective, InferStridedSlice, 1);
  TVM_RELAX_REGISTER_OP("relax.take", kInjective, InferTake, 2);
  TVM_RELAX_REGISTER_OP("relax.gather_elements", kInjective, InferGatherElements, 2);
  TVM_RELAX_REGISTER_OP("relax.gather_nd", kInjective, InferGatherND, 2);
  TVM_RELAX_REGISTER_OP("relax.broadcast_to", kBroadcast, InferBroadcastTo, 2);
  TVM_RELAX_REGISTER_OP("relax.tile", kInjective, InferTile, 1);
  TVM_RELAX_REGISTER_OP("relax.nn.pad", kInjective, InferPad, 1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
