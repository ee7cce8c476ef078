"""relax.BlockBuilder: builds Relax functions binding by binding (TVM's API).

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((n, 784), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.matmul(x, w))
            gv = bb.emit_output(relax.op.nn.relu(lv))
        bb.emit_func_output(gv)
    mod = bb.get()

Every emitted expression is normalized (its struct info inferred by the operator's C++ rule),
so shape and dtype errors surface at the emit that causes them. `call_te` turns a TE
function into a PrimFunc of the module and emits its call_tir.
"""

import contextlib

from ..ir import IRModule, _api
from . import expr as _expr


class _FuncScope:
    def __init__(self, name, params, attrs):
        self.name = name
        self.params = params
        self.attrs = attrs
        self.blocks = []
        self.bindings = []
        self.dataflow = False


class BlockBuilder:
    """Builds an IRModule of Relax functions and the PrimFuncs they call."""

    def __init__(self, mod=None):
        self._funcs = {}
        if mod is not None:
            for name, func in mod.functions.items():
                self._funcs[str(name)] = func
        self._scope = None
        self._counter = {}
        self._te_cache = {}  # call_te: (te_func, static argument types, kwargs) -> (gvar, out sinfo)

    @staticmethod
    def current():
        return _CURRENT[-1] if _CURRENT else None

    # ---------------------------------------------------------------- scopes

    @contextlib.contextmanager
    def function(self, name, params=None, attrs=None, pure=True):
        """A function scope; end it with emit_func_output (inside the with)."""
        if self._scope is not None:
            raise RuntimeError("BlockBuilder: functions do not nest")
        params = None if params is None else list(params)
        self._scope = _FuncScope(str(name), params, dict(attrs or {}))
        self._scope.pure = pure
        _CURRENT.append(self)
        try:
            yield self
            if self._scope is not None and str(name) not in self._funcs:
                raise RuntimeError("BlockBuilder: function %s ended without emit_func_output" % name)
        finally:
            _CURRENT.pop()
            self._scope = None

    @contextlib.contextmanager
    def dataflow(self):
        """A DataflowBlock: pure bindings; only emit_output values are visible after it."""
        s = self._need_scope()
        if s.dataflow:
            raise RuntimeError("BlockBuilder: dataflow blocks do not nest")
        self._flush()
        s.dataflow = True
        try:
            yield self
        finally:
            if s.bindings:
                s.blocks.append(_expr.DataflowBlock(s.bindings))
            s.bindings = []
            s.dataflow = False

    @contextlib.contextmanager
    def nested_scope(self):
        """The bindings of a nested SeqExpr (TVM's BeginScope/EndScope): what is emitted inside
        goes to blocks of their own, which the yielded list holds once the scope ends."""
        s = self._need_scope()
        saved = (s.blocks, s.bindings, s.dataflow)
        s.blocks, s.bindings, s.dataflow = [], [], False
        blocks = []
        try:
            yield blocks
            self._flush()
            blocks.extend(s.blocks)
        finally:
            s.blocks, s.bindings, s.dataflow = saved

    def _need_scope(self):
        if self._scope is None:
            raise RuntimeError("BlockBuilder: emit outside a function scope")
        return self._scope

    def _flush(self):
        s = self._scope
        if s.bindings:
            s.blocks.append(_expr.BindingBlock(s.bindings))
            s.bindings = []

    def _name(self, hint):
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return "%s%d" % (hint, n)

    # ---------------------------------------------------------------- emission

    def normalize(self, expr):
        """`expr` with struct info (the operators' inference rules)."""
        return _api("relax.Normalize")(_expr.convert(expr))

    _LEAVES = ("Var", "DataflowVar", "Constant", "ShapeExpr", "PrimValue", "StringImm",
               "DataTypeImm", "GlobalVar", "ExternFunc", "Op")

    def _anf(self, expr):
        """Nested calls in arguments are bound first (A-normal form), as TVM's normalizer does:
        every call's arguments are leaves or tuples of leaves."""
        def leaf(e):
            if type(e).__name__ in self._LEAVES:
                return e
            if isinstance(e, _expr.Tuple):
                return _expr.Tuple([leaf(f) for f in e.fields])
            return self.emit(e)
        # (each field read makes a wrapper through FFI: every field is read once)
        if isinstance(expr, _expr.Call):
            old = list(expr.args)
            args = [leaf(a) for a in old]
            if any(not a.same_as(b) for a, b in zip(args, old)):
                return _expr.Call(expr.op, args, dict(expr.attrs), list(expr.sinfo_args))
        elif isinstance(expr, _expr.Tuple):
            old = list(expr.fields)
            fields = [leaf(f) for f in old]
            if any(not a.same_as(b) for a, b in zip(fields, old)):
                return _expr.Tuple(fields)
        elif isinstance(expr, _expr.TupleGetItem):
            old = expr.tuple_value
            inner = leaf(old)
            if not inner.same_as(old):
                return _expr.TupleGetItem(inner, expr.index)
        return expr

    def emit(self, expr, name_hint=""):
        """Binds `expr` to a new variable (a DataflowVar inside a dataflow block); nested calls
        in its arguments get bindings of their own first."""
        s = self._need_scope()
        expr = self.normalize(self._anf(_expr.convert(expr)))
        cls = _expr.DataflowVar if s.dataflow else _expr.Var
        var = cls(name_hint or self._name("lv" if s.dataflow else "gv"), expr.struct_info)
        s.bindings.append(_expr.VarBinding(var, expr))
        return var

    def emit_output(self, output, name_hint=""):
        """In a dataflow block: binds `output` to a variable visible after the block."""
        s = self._need_scope()
        if not s.dataflow:
            raise RuntimeError("BlockBuilder: emit_output is for dataflow blocks")
        if isinstance(output, (list, tuple)):
            output = _expr.Tuple(list(output))
        expr = self.normalize(self._anf(_expr.convert(output)))
        var = _expr.Var(name_hint or self._name("gv"), expr.struct_info)
        s.bindings.append(_expr.VarBinding(var, expr))
        return var

    def match_cast(self, value, struct_info, name_hint=""):
        """Binds `value` after checking (at run time) that it matches `struct_info`; new
        symbolic variables in `struct_info` are defined by the match."""
        s = self._need_scope()
        value = self.normalize(value)
        cls = _expr.DataflowVar if s.dataflow else _expr.Var
        var = cls(name_hint or self._name("lv" if s.dataflow else "gv"), struct_info)
        s.bindings.append(_expr.MatchCast(var, value, struct_info))
        return var

    def emit_func_output(self, output, params=None):
        """Ends the function: `output` (an Expr or a list of them, a tuple) is its result."""
        s = self._need_scope()
        if s.dataflow:
            raise RuntimeError("BlockBuilder: emit_func_output inside a dataflow block")
        if params is not None:
            if s.params is not None:
                raise RuntimeError("BlockBuilder: params given twice")
            s.params = list(params)
        if s.params is None:
            raise RuntimeError("BlockBuilder: the function's params were never given")
        if isinstance(output, (list, tuple)):
            output = _expr.Tuple(list(output))
        output = self._anf(_expr.convert(output))
        if isinstance(output, _expr.Call):
            output = self.emit(output)
        self._flush()
        output = self.normalize(output)
        body = _expr.SeqExpr(s.blocks, output)
        attrs = dict(s.attrs)
        attrs.setdefault("global_symbol", s.name)
        func = _expr.Function(s.params, body, None, getattr(s, "pure", True), attrs)
        self._funcs[s.name] = func
        return func

    # ---------------------------------------------------------------- module

    def add_func(self, func, func_name):
        """Adds a PrimFunc or Relax function; returns its GlobalVar (name made unique)."""
        name = str(func_name)
        base, k = name, 1
        while name in self._funcs and not self._funcs[name].same_as(func):
            name = "%s%d" % (base, k)
            k += 1
        self._funcs[name] = func
        return _expr.GlobalVar(name)

    def update_func(self, gvar, func):
        self._funcs[gvar if isinstance(gvar, str) else str(gvar.name_hint)] = func

    def get(self):
        """The IRModule built so far."""
        return IRModule(dict(self._funcs))

    def call_te(self, te_func, *args, primfunc_name_hint=None, **kwargs):
        """The call_tir of a PrimFunc made from `te_func(*tensors, **kwargs)`: each tensor
        argument becomes a te.placeholder of its (symbolic) shape and dtype."""
        from .. import te

        from .. import tir

        tensor_args, sinfos = [], []
        for i, a in enumerate(args):
            a = _expr.convert(a)
            sinfo = self.normalize(a).struct_info
            if not isinstance(sinfo, _expr.TensorStructInfo) or not sinfo.shape_known:
                raise TypeError("call_te: argument %d must be a tensor of known shape" % i)
            tensor_args.append(a)
            sinfos.append(sinfo)
        # The same te_func on the same static types and keyword values makes the same
        # PrimFunc: a network's repeated layers (BERT's six) reuse the first one's instead of
        # building and lowering it again (DedupPrimFuncs would merge them later anyway).
        key = _te_cache_key(te_func, sinfos, kwargs, primfunc_name_hint)
        if key is not None and key in self._te_cache:
            from .op import call_tir

            gvar, out_sinfo = self._te_cache[key]
            return call_tir(gvar, tensor_args, out_sinfo)
        placeholders = [te.placeholder(list(sinfo.shape), str(sinfo.dtype), "arg%d" % i)
                        for i, sinfo in enumerate(sinfos)]
        outs = te_func(*placeholders, **kwargs)
        multi = isinstance(outs, (list, tuple))
        outs = list(outs) if multi else [outs]
        # A dimension computed from symbolic vars ((h - 1) // 2 + 1) binds nothing in the kernel:
        # the PrimFunc is made with a fresh var for it (the same for equal expressions); the
        # call's result shapes stay those in the caller's vars (`outs` above).
        fresh, kernel_ph = {}, []
        for i, sinfo in enumerate(sinfos):
            shape = []
            for d in sinfo.shape:
                if not isinstance(d, (tir.Var, tir.IntImm)):
                    d = fresh.setdefault(str(d), tir.Var("arg%d_d%d" % (i, len(fresh)), str(d.dtype)))
                shape.append(d)
            kernel_ph.append(te.placeholder(shape, str(sinfo.dtype), "arg%d" % i) if fresh else placeholders[i])
        if fresh:
            kouts = te_func(*kernel_ph, **kwargs)
            kouts = list(kouts) if multi else [kouts]
        else:
            kouts = outs
        func = te.create_prim_func(kernel_ph + kouts)
        # Variables of the outputs' shapes that no buffer dimension binds (an arange to n + 3,
        # a broadcast to [s, p + s] from inputs of other extents) become scalar parameters
        # after the buffers, passed by the call (TVM's tir_vars).
        from .shape_expr import prim_free_vars
        bound = {d._h for t in kernel_ph + kouts for d in t.shape if isinstance(d, tir.Var)}
        free = {}
        for t in kouts:
            for d in t.shape:
                if not isinstance(d, (tir.Var, tir.IntImm)):
                    prim_free_vars(d, free)
        tir_vars = [v for v in free.values() if v._h not in bound]
        if tir_vars:
            func = tir.PrimFunc(list(func.params) + tir_vars, func.body, dict(func.buffer_map),
                                dict(func.attrs))
        name = primfunc_name_hint or getattr(te_func, "__name__", "te_func")
        gvar = self.add_func(func.with_attr("global_symbol", name), name)
        # the symbol must be the (possibly uniquified) module name
        self._funcs[gvar if isinstance(gvar, str) else str(gvar.name_hint)] = func.with_attr("global_symbol", str(gvar.name_hint))
        from ..arith import Analyzer
        ana = Analyzer()
        out_sinfo = [_expr.TensorStructInfo([ana.simplify(d) for d in o.shape], str(o.dtype))
                     for o in outs]
        from .op import call_tir
        if key is not None and not tir_vars:
            self._te_cache[key] = (gvar, out_sinfo if multi else out_sinfo[0])
        return call_tir(gvar, tensor_args, out_sinfo if multi else out_sinfo[0],
                        tir_vars=_expr.ShapeExpr(tir_vars) if tir_vars else None)

    def emit_te(self, te_func, *args, **kwargs):
        return self.emit(self.call_te(te_func, *args, **kwargs))


def _plain(value):
    """`value` as a hashable tuple/scalar when it holds only Python scalars and integer
    constants (a static shape as the struct info gives it: tir.IntImm, keyed with its dtype),
    else None."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value).__name__, value)
    from .. import tir

    if isinstance(value, tir.IntImm):
        return ("IntImm", str(value.dtype), int(value.value))
    if isinstance(value, (list, tuple)):
        items = [_plain(v) for v in value]
        return None if any(i is None for i in items) else (type(value).__name__, tuple(items))
    return None


def static_type(sinfo):
    """((dims...), dtype) of a TensorStructInfo of static shape (every dimension an IntImm),
    else None: a hashable key for "the same tensor type" (call_te's kernel cache, FuseOps'
    shared groups)."""
    from .. import tir

    if not isinstance(sinfo, _expr.TensorStructInfo) or not sinfo.shape_known:
        return None
    dims = []
    for d in sinfo.shape:
        if not isinstance(d, tir.IntImm):
            return None
        dims.append(int(d.value))
    return tuple(dims), str(sinfo.dtype)


def _te_cache_key(te_func, sinfos, kwargs, name_hint):
    """call_te's cache key, or None when the call is not cacheable: a symbolic dimension
    (its Var belongs to the caller), a keyword value that is not plain Python data, or a
    te_func that cannot be hashed. The key holds te_func itself, so a function made per call
    (a closure over that call's values) never matches another."""
    types = [static_type(sinfo) for sinfo in sinfos]
    if any(t is None for t in types):
        return None
    kw = _plain(sorted(kwargs.items()))
    if kw is None:
        return None
    try:
        hash(te_func)
    except TypeError:
        return None
    return (te_func, tuple(types), kw, name_hint)


_CURRENT = []
