/*
 * MakePackedAPI: gives each PrimFunc the tvm-ffi packed calling convention
 *   int32 f(handle self, handle args, int32 num_args, handle result)
 * and turns its parameters into checks and bindings written in TIR: the argument count, each
 * argument's type index, and for tensors ndim, dtype, device, every shape entry (a constant
 * is checked, a Var is bound at its first use, an expression is checked) and compact strides;
 * then the data pointer (with byte_offset) is bound to the buffer's data Var. Each check is an
 * AssertStmt raising TypeError/ValueError with a message naming the function, the argument
 * and its name. Codegen then only lowers the `tir.ffi_*` / `tir.dltensor_*` intrinsics.
 *
 * For a function compiled for a GPU target (attr "target" of a device kind, the host part left
 * by SplitHostDevice), tensors must be on that device (kDLCUDA), all on the device of the first
 * tensor, whose id is bound to attr "tir.device_id"'s Var; the body starts by making that
 * device current (`__tvm_set_device`, as TVM's host code does) before it launches kernels.
 *
 * Runs after FlattenBuffer: the body's accesses use 1-D views of the same data Vars, while
 * `buffer_map` still has the N-D argument buffers that describe the checks.
 */
#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/target/target.h>
#include <tvm/tir/functor.h>

#include <functional>
#include <unordered_set>

#include "../../support/registry.h"

namespace tvm {
namespace tir {
namespace {

PrimExpr I32(int64_t v) { return IntImm(Int(32), v); }
PrimExpr I64(int64_t v) { return IntImm(Int(64), v); }
PrimExpr Intrin(DataType t, const char* op, Array<PrimExpr> args) { return MakeCall(t, op, std::move(args)); }
PrimExpr Eq(PrimExpr a, PrimExpr b) { return MakeBinary("tir.EQ", std::move(a), std::move(b)); }
PrimExpr Or(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Or", std::move(a), std::move(b)); }

// The checks and bindings, in order; wrapped around the body inside-out at the end.
struct Step {
  enum Kind { kAssert, kLet, kStrides } kind;
  PrimExpr cond;          // kAssert
  std::string err, msg;   // kAssert
  Var var;                // kLet
  PrimExpr value;         // kLet
  Stmt strides_check;     // kStrides: runs only when strides is not null
};

class Builder {
 public:

  void Assert(PrimExpr cond, const std::string& err, const std::string& msg) {
    steps.push_back(Step{Step::kAssert, std::move(cond), err, msg, Var(), PrimExpr(), Stmt()});
  }
  void Let(Var v, PrimExpr value) {
    bound.insert(v.get());
    steps.push_back(Step{Step::kLet, PrimExpr(), "", "", std::move(v), std::move(value), Stmt()});
  }

  void Scalar(const Var& args, int64_t i, const Var& p, const std::string& where) {
    PrimExpr tidx = Intrin(Int(32), "tir.ffi_arg_type_index", {args, I32(i)});
    Var tv(std::string(p->name) + ".type_index", Int(32));
    Let(tv, tidx);
    PrimExpr intlike = Or(Eq(tv, I32(1)), Eq(tv, I32(2)));  // int, bool
    DataType t = p->dtype;
    PrimExpr as_int = Intrin(Int(64), "tir.ffi_arg_int64", {args, I32(i)});
    if (IsFloat(t)) {
      Assert(Or(Eq(tv, I32(3)), intlike), "TypeError", where + " expects a float");
      PrimExpr v = MakeSelect(Eq(tv, I32(3)), Intrin(Float(64), "tir.ffi_arg_float64", {args, I32(i)}),
                              MakeCast(Float(64), as_int));
      Let(p, t.bits == 64 ? v : MakeCast(t, v));
    } else if (IsIntOrUInt(t) || IsBool(t)) {
      Assert(intlike, "TypeError", where + " expects an int");
      Let(p, IsBool(t) ? MakeBinary("tir.NE", as_int, I64(0)) : (t.bits == 64 ? as_int : MakeCast(t, as_int)));
    } else {
      TVM_FFI_THROW(TypeError) << where << ": unsupported scalar parameter dtype " << DTypeToString(t);
    }
  }

  void Tensor(const Var& args, int64_t i, const Buffer& b, const std::string& where) {
    std::string base(b->name);
    Var tv(base + ".type_index", Int(32));
    Let(tv, Intrin(Int(32), "tir.ffi_arg_type_index", {args, I32(i)}));
    Assert(Or(Eq(tv, I32(70)), Eq(tv, I32(7))), "TypeError", where + " expects a Tensor or DLTensor*");
    Var dl(base + ".dltensor", Handle());
    Let(dl, Intrin(Handle(), "tir.ffi_arg_dltensor", {args, I32(i), tv}));
    size_t nd = b->shape.size();
    Assert(Eq(Intrin(Int(32), "tir.dltensor_ndim", {dl}), I32(static_cast<int64_t>(nd))), "ValueError",
           where + ": ndim is expected to be " + std::to_string(nd));
    DataType t = b->dtype;
    int64_t want = int64_t(t.code) | (int64_t(t.bits) << 8) | (int64_t(t.lanes) << 16);
    Assert(Eq(Intrin(Int(32), "tir.dltensor_dtype", {dl}), I32(want)), "TypeError",
           where + ": dtype is expected to be " + DTypeToString(t));
    Assert(Eq(Intrin(Int(32), "tir.dltensor_device_type", {dl}), I32(device_type)), "ValueError",
           where + ": device_type is expected to be " + (device_type == 1 ? "cpu" : "cuda"));
    if (device_type != 1) {
      PrimExpr id = Intrin(Int(32), "tir.dltensor_device_id", {dl});
      if (!device_id.defined()) {
        device_id = Var("device_id", Int(32));
        Let(device_id, id);
      } else {
        Assert(Eq(id, device_id), "ValueError", where + ": expected to be on the same device as the first tensor");
      }
    }
    std::vector<PrimExpr> dims;
    for (size_t k = 0; k < nd; ++k) {
      PrimExpr d = Intrin(Int(64), "tir.dltensor_shape", {dl, I32(static_cast<int64_t>(k))});
      Var dv(base + ".shape" + std::to_string(k), Int(64));
      Let(dv, d);
      dims.push_back(dv);
      PrimExpr want_e = b->shape[k];
      std::string msg = where + ": shape[" + std::to_string(k) + "]";
      if (const VarNode* v = want_e.as<VarNode>(); v != nullptr && !bound.count(v)) {
        Var sv = UncheckedCast<Var>(want_e);
        Let(sv, sv->dtype.bits == 64 ? PrimExpr(dv) : MakeCast(sv->dtype, dv));
        continue;
      }
      if (const int64_t* c = AsConstInt(want_e)) {
        msg += " is expected to be " + std::to_string(*c);
        Assert(Eq(dv, arith::Simplify(MakeCast(Int(64), want_e), {})), "ValueError", msg);
        continue;
      }
      // A computed extent (n + 3) may use variables a later buffer binds: checked after
      // every argument is bound (as TVM's ArgBinder asserts come after its definitions).
      msg += " does not match";
      deferred.push_back(Step{Step::kAssert, Eq(dv, arith::Simplify(MakeCast(Int(64), want_e), {})),
                              "ValueError", msg, Var(), PrimExpr(), Stmt()});
    }
    if (b->strides.empty() && nd > 0) {
      // Checked only when the strides pointer is set (null means compact).
      Stmt chk = MakeEvaluate(I32(0));
      PrimExpr expect = I64(1);
      std::vector<PrimExpr> conds;  // innermost dimension first, the order they are checked
      for (size_t k = nd; k-- > 0;) {
        PrimExpr s = Intrin(Int(64), "tir.dltensor_stride", {dl, I32(static_cast<int64_t>(k))});
        conds.push_back(Or(Eq(s, expect), Eq(dims[k], I64(1))));
        expect = arith::Simplify(MakeBinary("tir.Mul", expect, dims[k]), {});
      }
      for (size_t k = conds.size(); k-- > 0;) {
        chk = MakeAssert(conds[k], "ValueError", where + ": strides are expected to be compact (row-major)", chk);
      }
      Stmt guarded = MakeIfThenElse(MakeNot(Intrin(Bool(), "tir.dltensor_strides_is_null", {dl})), chk, Stmt());
      steps.push_back(Step{Step::kStrides, PrimExpr(), "", "", Var(), PrimExpr(), guarded});
    }
    Let(b->data, Intrin(Handle(), "tir.dltensor_data", {dl}));
  }

  Stmt Wrap(Stmt body) const {
    for (size_t k = steps.size(); k-- > 0;) {
      const Step& s = steps[k];
      if (s.kind == Step::kAssert) {
        body = MakeAssert(s.cond, s.err, s.msg, body);
      } else if (s.kind == Step::kLet) {
        body = MakeLetStmt(s.var, s.value, body);
      } else {
        body = MakeSeq({s.strides_check, body});
      }
    }
    return body;
  }

  std::vector<Step> steps;
  std::vector<Step> deferred;  // computed-extent checks, appended after all arguments
  std::unordered_set<const Object*> bound;
  int device_type{1};
  Var device_id;  // bound from the first tensor of a device function
};

}  // namespace

PrimFunc MakePackedAPI(const PrimFunc& f, const std::string& name) {
  if (std::optional<Any> cc = f->attrs.Get(String("calling_conv"))) {
    if (auto s = cc->as<String>(); s && std::string(*s) == "packed") return f;  // already done
  }
  Var self("self", Handle()), args("args", Handle()), num_args("num_args", Int(32)), result("result", Handle());
  Builder b;
  if (std::optional<Any> t = f->attrs.Get(String("target"))) {
    if (std::optional<Target> target = t->as<Target>()) b.device_type = (*target)->DeviceType();
  }
  size_t n = f->params.size();
  b.Assert(Eq(num_args, I32(static_cast<int64_t>(n))), "TypeError",
           name + ": expected " + std::to_string(n) + " arguments");
  // Scalars first (as TVM): a buffer's shape may be computed from a scalar parameter that
  // comes after it (an arange to n + 3 with n passed as a tir_var), checked once n is bound.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < n; ++i) {
      Var p = f->params[i];
      std::string where = name + ": argument " + std::to_string(i) + " (" + std::string(p->name) + ")";
      std::optional<Buffer> buf = f->buffer_map.Get(p);
      if (pass == 0 && !buf) {
        b.Scalar(args, static_cast<int64_t>(i), p, where);
      } else if (pass == 1 && buf) {
        b.Tensor(args, static_cast<int64_t>(i), *buf, where);
      }
    }
  }
  b.steps.insert(b.steps.end(), b.deferred.begin(), b.deferred.end());
  Map<String, Any> attrs = f->attrs;
  attrs.Set(String("calling_conv"), String("packed"));
  attrs.Set(String("global_symbol"), String(name));
  Stmt body = f->body;
  if (b.device_type != 1) {
    if (!b.device_id.defined()) {
      // No tensor argument: the kernels run on the current device (device 0 unless set).
      b.device_id = Var("device_id", Int(32));
      b.Let(b.device_id, I32(0));
    }
    Stmt set_device = MakeEvaluate(MakeCall(Int(32), "tir.tvm_call_packed",
                                            {MakeStringImm("__tvm_set_device"), I32(b.device_type), b.device_id}));
    body = MakeSeq({set_device, body});
    attrs.Set(String("tir.device_id"), b.device_id);
  }
  return MakePrimFunc({self, args, num_args, result}, {}, b.Wrap(body), attrs);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.transform.MakePackedAPI", [](PrimFunc f, std::string name) {
    return MakePackedAPI(f, name);
  });
}

}  // namespace tir
}  // namespace tvm
