/*
 * The operators of the VM lowering (TVM's names), so each lowering pass leaves IR that can be
 * printed and checked: what CallTIRRewrite makes explicit (builtin.alloc_tensor), what
 * StaticPlanBlockMemory / LowerAllocTensor / KillAfterLastUse place (memory.*), what
 * LowerRuntimeBuiltin turns those into (vm.*), and the calls of VM builtins that take the VM
 * itself first (call_builtin_with_ctx). None of them is legalized: VMCodeGen emits each as one
 * instruction.
 *
 *   builtin.alloc_tensor(shape, dtype, runtime_device_index)        -> Tensor(shape, dtype)
 *   memory.alloc_storage(size, virtual_device_index, scope, dtype)  -> Object (a storage)
 *   memory.alloc_tensor(storage, offset, shape, dtype)              -> Tensor(shape, dtype)
 *   memory.kill_storage(storage), memory.kill_tensor(tensor)        -> ()
 *   vm.alloc_storage(size, runtime_device_index, dtype, scope)      -> Object
 *   vm.alloc_tensor(storage, offset, shape, dtype)                  -> Tensor(shape, dtype)
 *   vm.kill_object(value)                                           -> ()
 *   call_builtin_with_ctx(func, args tuple) [sinfo_args]            -> sinfo_args[0] or ()
 *   null_value()                                                    -> Object
 */
#include "op_common.h"

namespace tvm {
namespace relax {
namespace {

/*! \brief Argument `i` as a Shape value (its struct info's values), TypeError otherwise. */
Array<PrimExpr> ShapeArg(const CallNode* call, size_t i, const char* what) {
  StructInfo s = GetStructInfo(call->args[i]);
  auto* ss = s.as<ShapeStructInfoNode>();
  if (ss == nullptr) TVM_FFI_THROW(TypeError) << OpName(call) << ": " << what << " must be a shape";
  if (ss->values.empty() && ss->ndim != 0) {
    TVM_FFI_THROW(ValueError) << OpName(call) << ": " << what << " must have known values";
  }
  return ss->values;
}

DataType DTypeArg(const CallNode* call, size_t i) {
  auto* d = call->args[i].as<DataTypeImmNode>();
  if (d == nullptr) TVM_FFI_THROW(TypeError) << OpName(call) << ": argument " << i << " must be a dtype";
  return d->value;
}

void CheckPrimArg(const CallNode* call, size_t i, const char* what) {
  StructInfo s = GetStructInfo(call->args[i]);
  if (!s.as<PrimStructInfoNode>()) TVM_FFI_THROW(TypeError) << OpName(call) << ": " << what << " must be a prim value";
}

void CheckStringArg(const CallNode* call, size_t i, const char* what) {
  if (!call->args[i].as<StringImmNode>()) TVM_FFI_THROW(TypeError) << OpName(call) << ": " << what << " must be a string";
}

void CheckObjectArg(const CallNode* call, size_t i, const char* what) {
  StructInfo s = GetStructInfo(call->args[i]);
  if (!s.as<ObjectStructInfoNode>()) {
    TVM_FFI_THROW(TypeError) << OpName(call) << ": " << what << " must be a storage object, got " << s->GetTypeKey();
  }
}

StructInfo Void() { return TupleSInfo({}); }

StructInfo InferBuiltinAllocTensor(const CallNode* call) {
  Array<PrimExpr> shape = ShapeArg(call, 0, "the shape");
  DataType dtype = DTypeArg(call, 1);
  CheckPrimArg(call, 2, "the device index");
  return TensorSInfo(shape, dtype);
}

StructInfo InferMemoryAllocStorage(const CallNode* call) {
  ShapeArg(call, 0, "the size");
  CheckPrimArg(call, 1, "the device index");
  CheckStringArg(call, 2, "the storage scope");
  DTypeArg(call, 3);
  return ObjectSInfo();
}

StructInfo InferVMAllocStorage(const CallNode* call) {
  ShapeArg(call, 0, "the size");
  CheckPrimArg(call, 1, "the device index");
  DTypeArg(call, 2);
  CheckStringArg(call, 3, "the storage scope");
  return ObjectSInfo();
}

StructInfo InferAllocTensorInStorage(const CallNode* call) {
  CheckObjectArg(call, 0, "the storage");
  CheckPrimArg(call, 1, "the offset");
  Array<PrimExpr> shape = ShapeArg(call, 2, "the shape");
  return TensorSInfo(shape, DTypeArg(call, 3));
}

StructInfo InferKillStorage(const CallNode* call) {
  CheckObjectArg(call, 0, "the storage");
  return Void();
}

StructInfo InferKillTensor(const CallNode* call) {
  StructInfo s = GetStructInfo(call->args[0]);
  if (!s.as<TensorStructInfoNode>()) TVM_FFI_THROW(TypeError) << OpName(call) << ": expects a tensor";
  return Void();
}

StructInfo InferKillObject(const CallNode* call) {
  GetStructInfo(call->args[0]);
  return Void();
}

StructInfo InferCallBuiltinWithCtx(const CallNode* call) {
  if (call->args.size() != 2 || !call->args[0].as<ExternFuncNode>()) {
    TVM_FFI_THROW(ValueError) << OpName(call) << " expects (extern function, args tuple)";
  }
  if (!GetStructInfo(call->args[1]).as<TupleStructInfoNode>()) {
    TVM_FFI_THROW(TypeError) << OpName(call) << ": the arguments must be a tuple";
  }
  if (call->sinfo_args.size() > 1) TVM_FFI_THROW(ValueError) << OpName(call) << " takes one result struct info";
  return call->sinfo_args.empty() ? Void() : call->sinfo_args[0];
}

StructInfo InferNullValue(const CallNode*) { return ObjectSInfo(); }

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.builtin.alloc_tensor", kOpaque, InferBuiltinAllocTensor, 3);
  TVM_RELAX_REGISTER_OP("relax.memory.alloc_storage", kOpaque, InferMemoryAllocStorage, 4);
  TVM_RELAX_REGISTER_OP("relax.memory.alloc_tensor", kOpaque, InferAllocTensorInStorage, 4);
  TVM_RELAX_REGISTER_OP("relax.memory.kill_storage", kOpaque, InferKillStorage, 1);
  TVM_RELAX_REGISTER_OP("relax.memory.kill_tensor", kOpaque, InferKillTensor, 1);
  TVM_RELAX_REGISTER_OP("relax.vm.alloc_storage", kOpaque, InferVMAllocStorage, 4);
  TVM_RELAX_REGISTER_OP("relax.vm.alloc_tensor", kOpaque, InferAllocTensorInStorage, 4);
  TVM_RELAX_REGISTER_OP("relax.vm.kill_object", kOpaque, InferKillObject, 1);
  TVM_RELAX_REGISTER_OP("relax.call_builtin_with_ctx", kOpaque, InferCallBuiltinWithCtx, 2);
  TVM_RELAX_REGISTER_OP("relax.null_value", kOpaque, InferNullValue, 0);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
