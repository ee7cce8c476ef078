"""tvm.relax: the graph-level IR (TVM's Relax): functions of dataflow bindings over tensors
with symbolic shapes, operators with C++ shape/dtype inference, legalization to TE/TIR, and
compilation to VM bytecode plus kernels (relax.build / tvm.compile). docs/relax.md.
"""

from .._compiler_guard import require_compiler

require_compiler("tvm.relax")

from . import op, transform  # noqa: E402
from .block_builder import BlockBuilder  # noqa: E402
from .expr import (Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar,  # noqa: E402
                   DataTypeImm, Expr, ExternFunc, FuncStructInfo, Function, GlobalVar, MatchCast,
                   ObjectStructInfo, Op, PrimStructInfo, PrimValue, SeqExpr, ShapeExpr,
                   ShapeStructInfo, StringImm, StructInfo, TensorStructInfo, Tuple, TupleGetItem,
                   TupleStructInfo, Var, VarBinding, const, get_shape_of)
from . import analysis, backend, expr_functor  # noqa: E402,F401
from .expr_functor import ExprMutator, ExprVisitor, PyExprMutator, PyExprVisitor  # noqa: E402,F401
from .pipeline import default_build_pipeline, get_default_pipeline, get_pipeline  # noqa: E402
from .vm_build import VirtualMachine, VMExecutable, build  # noqa: E402

__all__ = ["ExprMutator", "ExprVisitor", "PyExprMutator", "PyExprVisitor", "analysis", "backend",
           "default_build_pipeline", "expr_functor", "Binding", "BindingBlock", "BlockBuilder", "Call", "Constant", "DataTypeImm",
           "DataflowBlock", "DataflowVar", "Expr", "ExternFunc", "FuncStructInfo", "Function",
           "GlobalVar", "MatchCast", "ObjectStructInfo", "Op", "PrimStructInfo", "PrimValue",
           "SeqExpr", "ShapeExpr", "ShapeStructInfo", "StringImm", "StructInfo",
           "TensorStructInfo", "Tuple", "TupleGetItem", "TupleStructInfo", "VMExecutable", "Var",
           "VarBinding", "VirtualMachine", "build", "const", "get_default_pipeline", "get_pipeline", "get_shape_of", "op",
           "transform"]
