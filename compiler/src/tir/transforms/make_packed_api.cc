/*
 * MakePackedAPI: gives each PrimFunc the tvm-ffi packed calling convention
 *   int32 f(handle self, handle args, int32 num_args, handle result)
 * and turns its parameters into checks and bindings written in TIR: the argument count, each
 * scalar's type index, and for tensors one `tir.ffi_arg_checked_tensor` call (type index,
 * ndim, dtype, device, the constant shape entries and compact strides, checked by a helper
 * codegen emits once per module) that yields the DLTensor*; a shape Var is bound at its first
 * use, an expression entry is checked by an AssertStmt; then the data pointer (with
 * byte_offset) is bound to the buffer's data Var. Every failure raises TypeError/ValueError
 * with a message naming the function, the argument and its name. Codegen then only lowers
 * the `tir.ffi_*` / `tir.dltensor_*` intrinsics.
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
  enum Kind { kAssert, kLet } kind;
  PrimExpr cond;          // kAssert
  std::string err, msg;   // kAssert
  Var var;                // kLet
  PrimExpr value;         // kLet
};

class Builder {
 public:

  void Assert(PrimExpr cond, const std::string& err, const std::string& msg) {
    steps.push_back(Step{Step::kAssert, std::move(cond), err, msg, Var(), PrimExpr()});
  }
  void Let(Var v, PrimExpr value) {
    bound.insert(v.get());
    steps.push_back(Step{Step::kLet, PrimExpr(), "", "", std::move(v), std::move(value)});
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

  // A tensor argument: one call of the module's shared checker (tir.ffi_arg_checked_tensor,
  // codegen's __tvm_ffi_check_tensor) tests its type index, ndim, dtype, device type, every
  // constant shape entry and, for a compact buffer, its strides, raising the same typed
  // errors the per-check asserts did; it returns the DLTensor* (the call returns -1 on
  // failure). Symbolic entries are bound or checked here in TIR. Why one call: inline
  // checks were ~20 KB of LLVM IR per kernel, a third of LLVM's time on a CNN.
  void Tensor(const Var& args, int64_t i, const Buffer& b, const std::string& where) {
    std::string base(b->name);
    size_t nd = b->shape.size();
    DataType t = b->dtype;
    int64_t want = int64_t(t.code) | (int64_t(t.bits) << 8) | (int64_t(t.lanes) << 16);
    Array<PrimExpr> check = {args, I32(i), MakeStringImm(where), MakeStringImm(DTypeToString(t)),
                             MakeStringImm(device_type == 1 ? "cpu" : "cuda"),
                             I64(static_cast<int64_t>(nd)), I64(want), I64(device_type),
                             I64(b->strides.empty() && nd > 0 ? 1 : 0)};
    for (const PrimExpr& d : b->shape) {
      const int64_t* c = AsConstInt(d);
      check.push_back(I64(c != nullptr ? *c : -1));  // -1: bound or checked below
    }
    Var dl(base + ".dltensor", Handle());
    Let(dl, Intrin(Handle(), "tir.ffi_arg_checked_tensor", check));
    if (device_type != 1) {
      PrimExpr id = Intrin(Int(32), "tir.dltensor_device_id", {dl});
      if (!device_id.defined()) {
        device_id = Var("device_id", Int(32));
        Let(device_id, id);
      } else {
        Assert(Eq(id, device_id), "ValueError", where + ": expected to be on the same device as the first tensor");
      }
    }
    for (size_t k = 0; k < nd; ++k) {
      PrimExpr want_e = b->shape[k];
      if (AsConstInt(want_e) != nullptr) continue;  // checked by the call
      PrimExpr d = Intrin(Int(64), "tir.dltensor_shape", {dl, I32(static_cast<int64_t>(k))});
      Var dv(base + ".shape" + std::to_string(k), Int(64));
      Let(dv, d);
      std::string msg = where + ": shape[" + std::to_string(k) + "]";
      if (const VarNode* v = want_e.as<VarNode>(); v != nullptr && !bound.count(v)) {
        Var sv = UncheckedCast<Var>(want_e);
        Let(sv, sv->dtype.bits == 64 ? PrimExpr(dv) : MakeCast(sv->dtype, dv));
        continue;
      }
      // A computed extent (n + 3) may use variables a later buffer binds: checked after
      // every argument is bound (as TVM's ArgBinder asserts come after its definitions).
      msg += " does not match";
      deferred.push_back(Step{Step::kAssert, Eq(dv, arith::Simplify(MakeCast(Int(64), want_e), {})),
                              "ValueError", msg, Var(), PrimExpr()});
    }
    Let(b->data, Intrin(Handle(), "tir.dltensor_data", {dl}));
  }

  Stmt Wrap(Stmt body) const {
    for (size_t k = steps.size(); k-- > 0;) {
      const Step& s = steps[k];
      if (s.kind == Step::kAssert) {
        body = MakeAssert(s.cond, s.err, s.msg, body);
      } else {
        body = MakeLetStmt(s.var, s.value, body);
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
