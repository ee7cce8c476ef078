/*
 * IRModule (tvm/ir/module.h): reflected fields and the constructor global. The module
 * accepts the two function kinds the stack has, checked by type key so this layer needs
 * neither dialect's headers.
 */
#include <tvm/ffi/error.h>
#include <tvm/ir/module.h>
#include <tvm/ir/reflection.h>

#include "../support/registry.h"

namespace tvm {

TVM_FFI_STATIC_INIT_BLOCK() {
  ir::Reflect<IRModuleNode>().Field("functions", &IRModuleNode::functions);
  RegisterCompilerGlobal("ir.IRModule", [](Map<String, ObjectRef> funcs) {
    for (const auto& kv : funcs) {
      std::string key = kv.second.defined() ? std::string(kv.second->GetTypeKey()) : "None";
      if (key != "tir.PrimFunc" && key != "relax.expr.Function") {
        TVM_FFI_THROW(TypeError) << "IRModule: " << std::string(kv.first) << " is a " << key
                                 << ", not a tir.PrimFunc or relax.Function";
      }
    }
    ObjectPtr<IRModuleNode> n = make_object<IRModuleNode>();
    n->functions = funcs;
    return IRModule(n);
  });
}

}  // namespace tvm
