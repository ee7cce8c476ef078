"""Walks over Relax expressions, shared by the passes (TVM's relax.expr_functor, in plain
Python over our node classes).

ExprVisitor visits every expression, binding and block of a function (override the
`visit_*_` methods; call the base to keep recursing). ExprMutator rebuilds a function binding
by binding through a BlockBuilder (`self.builder_`), so every rewritten value is normalized
(struct info from the operators' C++ rules, nested calls bound first) and each variable keeps
its kind: a DataflowVar stays one, a dataflow output stays visible after its block, a
MatchCast stays a MatchCast with its struct info. Uses of a rewritten variable are replaced
through `var_remap_` (handle -> new expression), which a pass may also fill itself (a binding
dropped in favour of another expression).
"""

from ..ir import structural_equal as _structural_equal
from .block_builder import BlockBuilder
from . import expr as _expr

_DISPATCH = (  # most derived first: DataflowVar is a Var
    (_expr.DataflowVar, "visit_dataflow_var_"), (_expr.Var, "visit_var_"),
    (_expr.Constant, "visit_constant_"), (_expr.Tuple, "visit_tuple_"),
    (_expr.TupleGetItem, "visit_tuple_getitem_"), (_expr.Call, "visit_call_"),
    (_expr.ShapeExpr, "visit_shape_expr_"), (_expr.SeqExpr, "visit_seq_expr_"),
    (_expr.Function, "visit_function_"), (_expr.GlobalVar, "visit_global_var_"),
    (_expr.Op, "visit_op_"), (_expr.PrimValue, "visit_prim_value_"),
    (_expr.StringImm, "visit_string_imm_"), (_expr.DataTypeImm, "visit_data_type_imm_"),
    (_expr.ExternFunc, "visit_extern_func_"),
)


_METHOD_OF_TYPE = {}  # type(e) -> its visit method's name (_DISPATCH resolved once per type)


def _method(e):
    try:
        return _METHOD_OF_TYPE[type(e)]
    except KeyError:
        pass
    for cls, name in _DISPATCH:
        if isinstance(e, cls):
            _METHOD_OF_TYPE[type(e)] = name
            return name
    raise TypeError("not a relax expression: %r" % type(e).__name__)


def key(obj):
    """Identity of an IR node (Python wrappers differ between reads of the same field)."""
    return obj._h


class ExprVisitor:
    """Visits an expression tree; the default of each visit_*_ recurses into children."""

    def visit_expr(self, e):
        return getattr(self, _method(e))(e)

    def _leaf(self, e):
        return None

    visit_var_ = visit_dataflow_var_ = visit_constant_ = visit_shape_expr_ = _leaf
    visit_global_var_ = visit_op_ = visit_prim_value_ = visit_string_imm_ = _leaf
    visit_data_type_imm_ = visit_extern_func_ = _leaf

    def visit_tuple_(self, e):
        for f in e.fields:
            self.visit_expr(f)

    def visit_tuple_getitem_(self, e):
        self.visit_expr(e.tuple_value)

    def visit_call_(self, e):
        self.visit_expr(e.op)
        for a in e.args:
            self.visit_expr(a)

    def visit_seq_expr_(self, e):
        for block in e.blocks:
            self.visit_binding_block(block)
        self.visit_expr(e.body)

    def visit_function_(self, e):
        for p in e.params:
            self.visit_var_def(p)
        self.visit_expr(e.body)

    def visit_binding_block(self, block):
        for b in block.bindings:
            self.visit_binding(b)

    def visit_binding(self, b):
        if isinstance(b, _expr.MatchCast):
            self.visit_match_cast_(b)
        else:
            self.visit_var_binding_(b)

    def visit_var_binding_(self, b):
        self.visit_expr(b.value)
        self.visit_var_def(b.var)

    def visit_match_cast_(self, b):
        self.visit_expr(b.value)
        self.visit_var_def(b.var)

    def visit_var_def(self, v):
        return None


class ExprMutator:
    """Rebuilds Relax functions through `self.builder_` (a BlockBuilder over `mod`)."""

    def __init__(self, mod=None):
        self.builder_ = BlockBuilder(mod)
        self.var_remap_ = {}       # old var handle -> replacement expression
        self._bound = {}           # new var handle -> its (new) bound value

    # ---------------------------------------------------------------- expressions

    def visit_expr(self, e):
        return getattr(self, _method(e))(e)

    def _same(self, e):
        return e

    visit_constant_ = visit_shape_expr_ = visit_global_var_ = visit_op_ = _same
    visit_prim_value_ = visit_string_imm_ = visit_data_type_imm_ = visit_extern_func_ = _same

    def visit_var_(self, v):
        return self.var_remap_.get(key(v), v)

    visit_dataflow_var_ = visit_var_

    def visit_tuple_(self, e):
        old = list(e.fields)
        fields = [self.visit_expr(f) for f in old]
        if all(a.same_as(b) for a, b in zip(fields, old)):
            return e
        return _expr.Tuple(fields)

    def visit_tuple_getitem_(self, e):
        t = self.visit_expr(e.tuple_value)
        return e if t.same_as(e.tuple_value) else _expr.TupleGetItem(t, e.index)

    def visit_call_(self, e):
        old = list(e.args)
        args = [self.visit_expr(a) for a in old]
        if all(a.same_as(b) for a, b in zip(args, old)):
            return e
        return _expr.Call(e.op, args, dict(e.attrs), list(e.sinfo_args))

    def visit_seq_expr_(self, e):
        """A nested SeqExpr (a binding's value, a function body): rebuilt in a scope of its
        own, its bindings visited like the function's."""
        with self.builder_.nested_scope() as blocks:
            for block in e.blocks:
                self.visit_binding_block(block)
            body = self.visit_expr(e.body)
        if not blocks and body.same_as(e.body):
            return e
        return _expr.SeqExpr(blocks, body)

    def visit_function_(self, e):
        raise NotImplementedError("ExprMutator: nested Function values (closures) are not "
                                  "supported; rewrite module functions with visit_function")

    # ---------------------------------------------------------------- bindings

    def visit_binding_block(self, block):
        if isinstance(block, _expr.DataflowBlock):
            with self.builder_.dataflow():
                self.visit_dataflow_block_(block)
        else:
            self.visit_binding_block_(block)

    def visit_binding_block_(self, block):
        for b in block.bindings:
            self.visit_binding(b)

    visit_dataflow_block_ = visit_binding_block_

    def visit_binding(self, b):
        if isinstance(b, _expr.MatchCast):
            self.visit_match_cast_(b)
        else:
            self.visit_var_binding_(b)

    def visit_var_binding_(self, b):
        self.emit_binding(b, self.visit_expr(b.value))

    def visit_match_cast_(self, b):
        self.emit_binding(b, self.visit_expr(b.value))

    def emit_binding(self, b, value):
        """Binds `value` as binding `b` did (same kind of variable, same name); returns the
        new variable, which replaces b.var in later uses."""
        bb = self.builder_
        var, old = b.var, b.value  # each field read makes a wrapper (an FFI call): once each
        if value.same_as(old) and self._reusable(b, var, old):
            # Unchanged (TVM's ExprMutator re-emits such a binding as it is): the old variable
            # is kept, which skips re-normalizing the value and making a new variable.
            bb._scope.bindings.append(b)
            k = key(var)
            self._bound[k] = old
            self.var_remap_[k] = var
            return var
        dataflow = bb._scope.dataflow
        is_df_var = isinstance(var, _expr.DataflowVar)
        if not isinstance(b, _expr.MatchCast) and (dataflow or not is_df_var):
            # A new value whose struct info equals the variable's keeps the variable (TVM's
            # ReEmitBinding does the same): later uses need no remapping, so the bindings
            # that read it stay as they are instead of being rebuilt one after another
            # (LowerRuntimeBuiltin's memory operators rebuilt most of BERT's bindings).
            expr = bb.normalize(bb._anf(_expr.convert(value)))
            sinfo = var.struct_info
            if sinfo.same_as(expr.struct_info) or _structural_equal(sinfo, expr.struct_info):
                bb._scope.bindings.append(_expr.VarBinding(var, expr))
                k = key(var)
                self._bound[k] = expr
                self.var_remap_[k] = var
                return var
            value = expr
        name = str(var.name_hint)
        if isinstance(b, _expr.MatchCast):
            new = bb.match_cast(value, b.struct_info, name)
        elif dataflow and not is_df_var:
            new = bb.emit_output(value, name)
        else:
            new = bb.emit(value, name)
        self._bound[key(new)] = bb._scope.bindings[-1].value
        self.var_remap_[key(var)] = new
        return new

    def _reusable(self, b, var=None, value=None):
        """Whether binding `b` (its variable and value, when already read) can stay as it is in
        the current scope: its variable is of the kind emit_binding would make there (a
        DataflowVar exactly inside a dataflow block, except an output, which is a Var) and
        carries the struct info a new one would get (the value's, as normalized; a
        match_cast's own)."""
        dataflow = self.builder_._scope.dataflow
        var = b.var if var is None else var
        is_df_var = isinstance(var, _expr.DataflowVar)
        if is_df_var and not dataflow:
            return False
        if isinstance(b, _expr.MatchCast):
            return is_df_var == dataflow and var.struct_info.same_as(b.struct_info)
        return var.struct_info.same_as((b.value if value is None else value).struct_info)

    def lookup_binding(self, var):
        """The value bound to (new) variable `var` in the function being built, or None."""
        return self._bound.get(key(var))

    # ---------------------------------------------------------------- functions

    def visit_function(self, name, func):
        """Rebuilds Relax function `func` as module function `name`; returns it. Attributes,
        purity and the declared return struct info are kept as they were."""
        bb = self.builder_
        body = func.body
        with bb.function(name, list(func.params), attrs=dict(func.attrs), pure=bool(func.is_pure)):
            self.enter_function(name, func)
            for block in (body.blocks if isinstance(body, _expr.SeqExpr) else []):
                self.visit_binding_block(block)
            out = self.visit_expr(body.body if isinstance(body, _expr.SeqExpr) else body)
            built = bb.emit_func_output(out)
        new = _expr.Function(list(built.params), built.body, func.ret_struct_info,
                             bool(func.is_pure), dict(func.attrs))
        bb.update_func(_expr.GlobalVar(name), new)
        return new

    def enter_function(self, name, func):
        """Called when the rebuild of `func` starts, before its first binding: a pass may emit
        bindings of its own here (allocations, checks at entry)."""

    def transform_module(self):
        """Every Relax function of the builder's module rewritten; the new IRModule."""
        for name, func in list(self.builder_.get().functions.items()):
            if isinstance(func, _expr.Function):
                self.var_remap_ = {}
                self._bound = {}
                self.visit_function(str(name), func)
        return self.builder_.get()


def module_pass(mutator_factory, name):
    """A tvm.transform ModulePass applying `mutator_factory(mod).transform_module()`."""
    from ..ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        return mutator_factory(mod).transform_module()
    return ModulePass(run, PassInfo(0, name))


# ---------------------------------------------------------------- TVM's Python-side API

class PyExprVisitor(ExprVisitor):
    """TVM's relax.PyExprVisitor: subclass it (under @visitor) and override visit_*_ methods;
    `visit_expr(func)` walks a whole function."""


class PyExprMutator(ExprMutator):
    """TVM's relax.PyExprMutator: subclass it (under @mutator), override visit_*_ methods and
    rewrite functions with `visit_expr(func)`, which returns the new Function (put it into
    the module with `self.builder_.update_func(gvar, func)`):

        @relax.expr_functor.mutator
        class SwapAdd(relax.PyExprMutator):
            def visit_call_(self, call):
                call = self.visit_expr_post_order(call)
                if call.op == tvm.ir.Op.get("relax.add"):
                    return relax.op.multiply(*call.args)
                return call
    """

    def visit_expr(self, e):
        if isinstance(e, _expr.Function):
            return self._rewrite_function(e)
        return super().visit_expr(e)

    def _rewrite_function(self, func):
        name = str(func.attrs["global_symbol"]) if "global_symbol" in func.attrs else "__func"
        saved = self.builder_._funcs.get(name)
        self.var_remap_, self._bound = {}, {}
        new = self.visit_function(name, func)
        if saved is None:   # the caller places the function (update_func), not the rewrite
            self.builder_._funcs.pop(name, None)
        else:
            self.builder_._funcs[name] = saved
        return new

    def visit_expr_post_order(self, e):
        """`e` with its children visited and nothing else (the default rewrite of its kind)."""
        return getattr(ExprMutator, _method(e))(self, e)

    def set_var_remap(self, vid, var):
        """Later uses of variable `vid` (a Var) become `var`."""
        self.var_remap_[key(vid)] = var

    def get_var_remap(self, vid):
        return self.var_remap_.get(key(vid))

    def with_struct_info(self, var, struct_info):
        """`var` itself when it already has `struct_info`, else a new Var with it."""
        if var.struct_info.same_as(struct_info):
            return var
        cls = _expr.DataflowVar if isinstance(var, _expr.DataflowVar) else _expr.Var
        return cls(str(var.name_hint), struct_info)


def _decorate(cls, base, what, py_name):
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise TypeError("@relax.expr_functor.%s decorates a subclass of relax.%s, got %r"
                        % (what, py_name, cls))
    return cls


def visitor(cls):
    """TVM's @relax.expr_functor.visitor: marks a PyExprVisitor subclass (our walkers are
    Python already, so the class is used as it is)."""
    return _decorate(cls, ExprVisitor, "visitor", "PyExprVisitor")


def mutator(cls):
    """TVM's @relax.expr_functor.mutator: marks a PyExprMutator subclass."""
    return _decorate(cls, ExprMutator, "mutator", "PyExprMutator")
