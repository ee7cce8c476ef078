#include "tensor_arg_check.h"

#include <map>

namespace tvm {
namespace codegen {
namespace {

// The checker, with $NAME placeholders for the string globals. Blocks in check order: type
// index, ndim, dtype, device type, the constant shape entries, then (when asked and the
// strides pointer is set) compact strides, innermost first: a stride must be the product
// of the extents inside it unless its extent is 1.
constexpr const char* kBody = R"(define $LINKAGE ptr @__tvm_check_tensor_arg(ptr %args, i32 %i, ptr %spec, ptr %where, ptr %dtype_name, ptr %device_name) #1 {
entry:
  %msg = alloca [1024 x i8], align 16
  %i64 = sext i32 %i to i64
  %off = mul i64 %i64, 16
  %slot = getelementptr inbounds i8, ptr %args, i64 %off
  %tidx = load i32, ptr %slot, align 8
  %vp = getelementptr inbounds i8, ptr %slot, i64 8
  %h = load ptr, ptr %vp, align 8
  %is_tensor = icmp eq i32 %tidx, 70
  %is_ptr = icmp eq i32 %tidx, 7
  %typed = or i1 %is_tensor, %is_ptr
  br i1 %typed, label %ndim, label %bad_type
ndim:
  %cell = getelementptr inbounds i8, ptr %h, i64 24
  %dl = select i1 %is_tensor, ptr %cell, ptr %h
  %nd_p = getelementptr inbounds i8, ptr %dl, i64 16
  %nd = load i32, ptr %nd_p, align 4
  %want_nd64 = load i64, ptr %spec, align 8
  %want_nd = trunc i64 %want_nd64 to i32
  %nd_ok = icmp eq i32 %nd, %want_nd
  br i1 %nd_ok, label %dtype, label %bad_ndim
dtype:
  %dt_p = getelementptr inbounds i8, ptr %dl, i64 20
  %dt = load i32, ptr %dt_p, align 4
  %want_dt_p = getelementptr inbounds i64, ptr %spec, i64 1
  %want_dt64 = load i64, ptr %want_dt_p, align 8
  %want_dt = trunc i64 %want_dt64 to i32
  %dt_ok = icmp eq i32 %dt, %want_dt
  br i1 %dt_ok, label %device, label %bad_dtype
device:
  %dev_p = getelementptr inbounds i8, ptr %dl, i64 8
  %dev = load i32, ptr %dev_p, align 4
  %want_dev_p = getelementptr inbounds i64, ptr %spec, i64 2
  %want_dev64 = load i64, ptr %want_dev_p, align 8
  %want_dev = trunc i64 %want_dev64 to i32
  %dev_ok = icmp eq i32 %dev, %want_dev
  br i1 %dev_ok, label %shapes, label %bad_device
shapes:
  %shape_pp = getelementptr inbounds i8, ptr %dl, i64 24
  %shape = load ptr, ptr %shape_pp, align 8
  %dims = getelementptr inbounds i64, ptr %spec, i64 4
  br label %shape_loop
shape_loop:
  %k = phi i64 [ 0, %shapes ], [ %k1, %shape_next ]
  %more = icmp slt i64 %k, %want_nd64
  br i1 %more, label %shape_body, label %strides
shape_body:
  %want_p = getelementptr inbounds i64, ptr %dims, i64 %k
  %want = load i64, ptr %want_p, align 8
  %got_p = getelementptr inbounds i64, ptr %shape, i64 %k
  %got = load i64, ptr %got_p, align 8
  %free = icmp slt i64 %want, 0
  %same = icmp eq i64 %got, %want
  %dim_ok = or i1 %free, %same
  %k1 = add i64 %k, 1
  br i1 %dim_ok, label %shape_next, label %bad_shape
shape_next:
  br label %shape_loop
strides:
  %cs_p = getelementptr inbounds i64, ptr %spec, i64 3
  %cs = load i64, ptr %cs_p, align 8
  %st_pp = getelementptr inbounds i8, ptr %dl, i64 32
  %st = load ptr, ptr %st_pp, align 8
  %st_null = icmp eq ptr %st, null
  %no_cs = icmp eq i64 %cs, 0
  %skip = or i1 %st_null, %no_cs
  br i1 %skip, label %done, label %stride_loop
stride_loop:
  %j = phi i64 [ %want_nd64, %strides ], [ %j0, %stride_next ]
  %expect = phi i64 [ 1, %strides ], [ %expect1, %stride_next ]
  %left = icmp sgt i64 %j, 0
  br i1 %left, label %stride_body, label %done
stride_body:
  %j0 = sub i64 %j, 1
  %s_p = getelementptr inbounds i64, ptr %st, i64 %j0
  %s = load i64, ptr %s_p, align 8
  %d_p = getelementptr inbounds i64, ptr %shape, i64 %j0
  %d = load i64, ptr %d_p, align 8
  %s_ok = icmp eq i64 %s, %expect
  %unit = icmp eq i64 %d, 1
  %st_ok = or i1 %s_ok, %unit
  %expect1 = mul i64 %expect, %d
  br i1 %st_ok, label %stride_next, label %bad_strides
stride_next:
  br label %stride_loop
done:
  ret ptr %dl
bad_type:
  %r0 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 1024, ptr $FMT_TYPE, ptr %where)
  call void @TVMFFIErrorSetRaisedFromCStr(ptr $TYPE_ERROR, ptr %msg)
  ret ptr null
bad_ndim:
  %r1 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 1024, ptr $FMT_NDIM, ptr %where, i32 %want_nd)
  call void @TVMFFIErrorSetRaisedFromCStr(ptr $VALUE_ERROR, ptr %msg)
  ret ptr null
bad_dtype:
  %r2 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 1024, ptr $FMT_DTYPE, ptr %where, ptr %dtype_name)
  call void @TVMFFIErrorSetRaisedFromCStr(ptr $TYPE_ERROR, ptr %msg)
  ret ptr null
bad_device:
  %r3 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 1024, ptr $FMT_DEVICE, ptr %where, ptr %device_name)
  call void @TVMFFIErrorSetRaisedFromCStr(ptr $VALUE_ERROR, ptr %msg)
  ret ptr null
bad_shape:
  %r4 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 1024, ptr $FMT_SHAPE, ptr %where, i64 %k, i64 %want)
  call void @TVMFFIErrorSetRaisedFromCStr(ptr $VALUE_ERROR, ptr %msg)
  ret ptr null
bad_strides:
  %r5 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 1024, ptr $FMT_STRIDES, ptr %where)
  call void @TVMFFIErrorSetRaisedFromCStr(ptr $VALUE_ERROR, ptr %msg)
  ret ptr null
}
)";

}  // namespace

std::string TensorArgCheckerIR(const std::function<std::string(const std::string&)>& str,
                               CheckerLinkage linkage) {
  // The messages MakePackedAPI's asserts raised before (tests match them).
  const std::map<std::string, std::string> globals = {
      {"$LINKAGE", linkage == CheckerLinkage::kInternal ? "internal" : "weak_odr hidden"},
      {"$TYPE_ERROR", str("TypeError")},
      {"$VALUE_ERROR", str("ValueError")},
      {"$FMT_TYPE", str("%s expects a Tensor or DLTensor*")},
      {"$FMT_NDIM", str("%s: ndim is expected to be %d")},
      {"$FMT_DTYPE", str("%s: dtype is expected to be %s")},
      {"$FMT_DEVICE", str("%s: device_type is expected to be %s")},
      {"$FMT_SHAPE", str("%s: shape[%lld] is expected to be %lld")},
      {"$FMT_STRIDES", str("%s: strides are expected to be compact (row-major)")},
  };
  std::string text(kBody);
  for (const auto& kv : globals) {
    for (size_t at = text.find(kv.first); at != std::string::npos; at = text.find(kv.first, at)) {
      text.replace(at, kv.first.size(), kv.second);
      at += kv.second.size();
    }
  }
  return text;
}

std::string TensorArgCheckerDecl() {
  return std::string("declare hidden ptr @") + kTensorArgChecker + "(ptr, i32, ptr, ptr, ptr, ptr)";
}

}  // namespace codegen
}  // namespace tvm
