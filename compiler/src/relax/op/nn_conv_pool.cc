/*
 * Convolutions (conv1d/2d/3d: strides, padding, dilation, groups, layouts) and pooling
 * (max/avg pool 1d/2d/3d with ceil_mode, adaptive average pool 1d/2d/3d). Attributes as TVM's:
 * padding is (before..., after...) per spatial dimension once the constructor has expanded
 * it; layouts are permutations of the canonical NCW/NCHW/NCDHW (data) and OIW/OIHW/OIDHW
 * (kernel).
 */
#include "op_common.h"

namespace tvm {
namespace relax {
namespace {

const char* kDataCanon[] = {"", "NCW", "NCHW", "NCDHW"};
const char* kKernelCanon[] = {"", "OIW", "OIHW", "OIDHW"};

/*! \brief Output extent of a sliding window: floor((in + pads - dil*(k-1) - 1 [+ s-1]) / s) + 1. */
PrimExpr WindowOut(PrimExpr in, int64_t pad, PrimExpr k, int64_t dil, int64_t stride, bool ceil_mode) {
  PrimExpr eff = Add(Mul(I64(dil), Sub(k, I64(1))), I64(1));
  PrimExpr num = Sub(Add(in, I64(pad)), eff);
  if (ceil_mode) num = Add(num, I64(stride - 1));
  return Simp(Add(FloorDiv(num, I64(stride)), I64(1)));
}

void CheckPositive(const std::vector<int64_t>& v, const std::string& op, const char* what) {
  for (int64_t x : v) {
    if (x <= 0) TVM_FFI_THROW(ValueError) << op << ": " << what << " must be positive";
  }
}

StructInfo InferConv(const CallNode* call, int nsp) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* w = TensorArg(call, 1);
  int64_t nd = nsp + 2;
  if (x->ndim >= 0 && x->ndim != nd) TVM_FFI_THROW(ValueError) << op << ": data must be " << nd << "-d, got " << x->ndim << "-d";
  if (w->ndim >= 0 && w->ndim != nd) TVM_FFI_THROW(ValueError) << op << ": weight must be " << nd << "-d, got " << w->ndim << "-d";
  if (!IsUnknownDType(x->dtype) && !IsUnknownDType(w->dtype) && x->dtype != w->dtype) {
    TVM_FFI_THROW(TypeError) << op << ": data and weight dtypes differ (" << DTypeToString(x->dtype) << " vs "
                             << DTypeToString(w->dtype) << ")";
  }
  std::string dl = StrAttr(call, "data_layout", kDataCanon[nsp]);
  std::string kl = StrAttr(call, "kernel_layout", kKernelCanon[nsp]);
  std::string ol = StrAttr(call, "out_layout", dl);
  std::vector<int> dperm = LayoutPerm(dl, kDataCanon[nsp], op, "data_layout");
  std::vector<int> kperm = LayoutPerm(kl, kKernelCanon[nsp], op, "kernel_layout");
  std::vector<int> operm = LayoutPerm(ol, kDataCanon[nsp], op, "out_layout");
  std::vector<int64_t> strides = Expand(IntsAttr(call, "strides", {1}), nsp, op, "strides");
  std::vector<int64_t> dilation = Expand(IntsAttr(call, "dilation", {1}), nsp, op, "dilation");
  std::vector<int64_t> pad = Padding(call, nsp, op);
  CheckPositive(strides, op, "strides");
  CheckPositive(dilation, op, "dilation");
  int64_t groups = AttrOr<int64_t>(call, "groups", 1);
  if (groups <= 0) TVM_FFI_THROW(ValueError) << op << ": groups must be positive";
  DataType dt = DTypeAttr(call, "out_dtype", IsUnknownDType(x->dtype) ? w->dtype : x->dtype);
  if (IsUnknownDType(dt) && !IsUnknownDType(x->dtype)) dt = x->dtype;
  if (!x->shape_known || !w->shape_known) return TensorSInfoUnknown(dt, nd);
  Array<PrimExpr> xs = ToCanonical(x->shape, dperm), ws = ToCanonical(w->shape, kperm);
  // channels: C == I * groups, O % groups == 0
  if (ProveEqual(xs[1], Mul(ws[1], I64(groups))) == 0) {
    TVM_FFI_THROW(ValueError) << op << ": data has " << DimStr(xs[1]) << " channels but weight expects " << DimStr(ws[1]) << " x "
                              << groups << " groups";
  }
  PrimExpr out_ch = ws[0];
  if (const int64_t* o = AsConstInt(out_ch)) {
    if (*o % groups != 0) TVM_FFI_THROW(ValueError) << op << ": " << *o << " output channels are not divisible by groups=" << groups;
  }
  Array<PrimExpr> out{xs[0], ws[0]};
  for (int k = 0; k < nsp; ++k) {
    PrimExpr e = WindowOut(xs[2 + k], pad[k] + pad[nsp + k], ws[2 + k], dilation[k], strides[k], false);
    if (const int64_t* c = AsConstInt(e)) {
      if (*c <= 0) TVM_FFI_THROW(ValueError) << op << ": the kernel (dilated) is larger than the padded input";
    }
    out.push_back(e);
  }
  return TensorSInfo(FromCanonical(out, operm), dt);
}

StructInfo InferPool(const CallNode* call, int nsp) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  int64_t nd = nsp + 2;
  if (x->ndim >= 0 && x->ndim != nd) TVM_FFI_THROW(ValueError) << op << ": data must be " << nd << "-d, got " << x->ndim << "-d";
  std::string l = StrAttr(call, "layout", kDataCanon[nsp]);
  std::string ol = StrAttr(call, "out_layout", l);
  std::vector<int> perm = LayoutPerm(l, kDataCanon[nsp], op, "layout");
  std::vector<int> operm = LayoutPerm(ol, kDataCanon[nsp], op, "out_layout");
  std::vector<int64_t> size = Expand(IntsAttr(call, "pool_size", {1}), nsp, op, "pool_size");
  std::vector<int64_t> strides = Expand(IntsAttr(call, "strides", {1}), nsp, op, "strides");
  std::vector<int64_t> dilation = Expand(IntsAttr(call, "dilation", {1}), nsp, op, "dilation");
  std::vector<int64_t> pad = Padding(call, nsp, op);
  CheckPositive(size, op, "pool_size");
  CheckPositive(strides, op, "strides");
  CheckPositive(dilation, op, "dilation");
  bool ceil_mode = AttrOr<bool>(call, "ceil_mode", false);
  if (!x->shape_known) return TensorSInfoUnknown(x->dtype, nd);
  Array<PrimExpr> xs = ToCanonical(x->shape, perm);
  Array<PrimExpr> out{xs[0], xs[1]};
  for (int k = 0; k < nsp; ++k) {
    PrimExpr e = WindowOut(xs[2 + k], pad[k] + pad[nsp + k], I64(size[k]), dilation[k], strides[k], ceil_mode);
    if (const int64_t* c = AsConstInt(e)) {
      if (*c <= 0) TVM_FFI_THROW(ValueError) << op << ": the pooling window is larger than the padded input";
    }
    out.push_back(e);
  }
  return TensorSInfo(FromCanonical(out, operm), x->dtype);
}

StructInfo InferAdaptivePool(const CallNode* call, int nsp) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  int64_t nd = nsp + 2;
  if (x->ndim >= 0 && x->ndim != nd) TVM_FFI_THROW(ValueError) << op << ": data must be " << nd << "-d, got " << x->ndim << "-d";
  std::string l = StrAttr(call, "layout", kDataCanon[nsp]);
  std::string ol = StrAttr(call, "out_layout", l);
  std::vector<int> perm = LayoutPerm(l, kDataCanon[nsp], op, "layout");
  std::vector<int> operm = LayoutPerm(ol, kDataCanon[nsp], op, "out_layout");
  std::vector<int64_t> osize;
  if (HasAttr(call, "output_size")) {
    osize = Expand(IntsAttr(call, "output_size"), nsp, op, "output_size");
    CheckPositive(osize, op, "output_size");
  }
  if (!x->shape_known) return TensorSInfoUnknown(x->dtype, nd);
  Array<PrimExpr> xs = ToCanonical(x->shape, perm);
  Array<PrimExpr> out{xs[0], xs[1]};
  for (int k = 0; k < nsp; ++k) out.push_back(osize.empty() ? xs[2 + k] : I64(osize[k]));
  return TensorSInfo(FromCanonical(out, operm), x->dtype);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.nn.conv1d", kOutEWiseFusable, [](const CallNode* c) { return InferConv(c, 1); }, 2);
  TVM_RELAX_REGISTER_OP("relax.nn.conv2d", kOutEWiseFusable, [](const CallNode* c) { return InferConv(c, 2); }, 2);
  TVM_RELAX_REGISTER_OP("relax.nn.conv3d", kOutEWiseFusable, [](const CallNode* c) { return InferConv(c, 3); }, 2);
  for (const char* name : {"relax.nn.max_pool1d", "relax.nn.avg_pool1d"}) {
    TVM_RELAX_REGISTER_OP(name, kOutEWiseFusable, [](const CallNode* c) { return InferPool(c, 1); }, 1);
  }
  for (const char* name : {"relax.nn.max_pool2d", "relax.nn.avg_pool2d"}) {
    TVM_RELAX_REGISTER_OP(name, kOutEWiseFusable, [](const CallNode* c) { return InferPool(c, 2); }, 1);
  }
  for (const char* name : {"relax.nn.max_pool3d", "relax.nn.avg_pool3d"}) {
    TVM_RELAX_REGISTER_OP(name, kOutEWiseFusable, [](const CallNode* c) { return InferPool(c, 3); }, 1);
  }
  TVM_RELAX_REGISTER_OP("relax.nn.adaptive_avg_pool3d", kOutEWiseFusable,
                        [](const CallNode* c) { return InferAdaptivePool(c, 3); }, 1);
  TVM_RELAX_REGISTER_OP("relax.nn.adaptive_avg_pool1d", kOutEWiseFusable,
                        [](const CallNode* c) { return InferAdaptivePool(c, 1); }, 1);
  TVM_RELAX_REGISTER_OP("relax.nn.adaptive_avg_pool2d", kOutEWiseFusable,
                        [](const CallNode* c) { return InferAdaptivePool(c, 2); }, 1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
