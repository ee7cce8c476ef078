/*
 * IRModule: the unit passes and codegen work on, a map from global names to functions of
 * any dialect (tir.PrimFunc, relax.Function: TVM's BaseFunc). A pass over one dialect skips
 * the functions of the others (tir's AsPrimFunc).
 */
#ifndef TVM_IR_MODULE_H_
#define TVM_IR_MODULE_H_

#include <tvm/ir/expr.h>

namespace tvm {

class IRModuleNode : public Object {
 public:
  Map<String, ObjectRef> functions;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ir.IRModule", IRModuleNode, Object);
};

class IRModule : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(IRModule, ObjectRef, IRModuleNode);
};

}  // namespace tvm
#endif  // TVM_IR_MODULE_H_
