/*
 * LowerTVMBuiltin: temporaries that do not fit the stack become workspace calls of the
 * runtime (TVMBackendAllocWorkspace / TVMBackendFreeWorkspace), written in TIR:
 *
 *   A: handle = T.TVMBackendAllocWorkspace(1, 0, nbytes, code, bits)
 *   assert not T.isnullptr(A), "RuntimeError: f: cannot allocate workspace for A"
 *   <body>
 *   T.TVMBackendFreeWorkspace(1, 0, A)
 *
 * An Allocate of a constant size up to 1024 bytes (TVM's kMaxStackAlloca) stays an Allocate:
 * codegen puts it on the stack (an entry-block alloca, promoted to registers by LLVM).
 * In the host part of a GPU function (MakePackedAPI set attr "tir.device_id") every
 * allocation holds device memory between kernels: all of them come from the device's
 * workspace (device type 2, the tensors' device id).
 */
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

#include "../../support/registry.h"
#include "../analysis/analysis.h"

namespace tvm {
namespace tir {
namespace {

constexpr int64_t kMaxStackBytes = 1024;

int64_t ElemBytes(DataType t) { return IsBool(t) ? 1 : (t.bits + 7) / 8; }  // as codegen stores

struct Device {
  int64_t type{1};
  PrimExpr id;
};

Stmt LowerAllocate(const Stmt& x, const std::string& func, const Device& dev) {
  auto* n = x.as<AllocateNode>();
  if (n == nullptr) return x;
  DataType t = n->buffer->dtype;
  int64_t bytes = ElemBytes(t);
  PrimExpr size = IntImm(Int(64), bytes);
  bool constant = true;
  for (const PrimExpr& d : n->buffer->shape) {
    const int64_t* c = AsConstInt(d);
    if (c == nullptr) {
      constant = false;
    } else if (constant) {
      bytes = bytes <= kMaxStackBytes ? bytes * *c : bytes;
    }
    size = MakeBinary("tir.Mul", size, MakeCast(Int(64), d));
  }
  if (constant && bytes <= kMaxStackBytes && dev.type == 1) return x;
  Var data = n->buffer->data;
  auto i32 = [](int64_t v) { return IntImm(Int(32), v); };
  PrimExpr alloc = MakeCall(Handle(), "tir.TVMBackendAllocWorkspace",
                            {i32(dev.type), dev.id, size, i32(t.code), i32(t.bits)});
  Stmt free = MakeEvaluate(MakeCall(Int(32), "tir.TVMBackendFreeWorkspace", {i32(dev.type), dev.id, data}));
  Stmt body = MakeSeq({n->body, free});
  body = MakeAssert(MakeNot(MakeCall(Bool(), "tir.isnullptr", {data})), "RuntimeError",
                    func + ": cannot allocate workspace for " + std::string(n->buffer->name), body);
  return MakeLetStmt(data, alloc, body);
}

}  // namespace

PrimFunc LowerTVMBuiltin(const PrimFunc& f) {
  std::string name = f.GlobalSymbol("main");
  Device dev{1, IntImm(Int(32), 0)};
  if (std::optional<Any> id = f->attrs.Get(String("tir.device_id"))) {
    dev = Device{2, id->cast<Var>()};
  }
  return WithBody(f, PostOrderRewrite(f->body, [&](const Stmt& s) { return LowerAllocate(s, name, dev); }));
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.transform.LowerTVMBuiltin", [](PrimFunc f) { return LowerTVMBuiltin(f); });
}

}  // namespace tir
}  // namespace tvm
