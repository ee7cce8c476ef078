"""FoldConstant: values computable at compile time become relax.Constant (TVM's pass).

- call_tir of a PrimFunc whose tensor arguments are all constants: the PrimFunc is compiled
  for the host ("llvm", JIT) and run; the call becomes its output constant(s).
- an operator call whose arguments are all constants (tensors, shapes, prim values): the call
  is legalized on its own (LegalizeOps, so the very kernels `relax.build` would use compute
  it) and the resulting call_tir chain is folded as above.
- TupleGetItem of a tuple of constants: the field.
Arguments are looked through: a variable bound to a constant counts as that constant (the
binding is left for DeadCodeElimination).

Left alone: calls whose output shape is symbolic or unknown; call_dps_packed and calls of
functions (they may be impure); operators without a legalization; and, so the artifact does
not grow for nothing, any fold whose output is larger than all its constant inputs together
AND larger than MAX_GROWN_BYTES (a zeros/broadcast_to/tile of a constant costs next to nothing
at run time but would be stored whole).
"""

import numpy as np

from ... import tir
from ...ir import IRModule, structural_equal, structural_hash
from .. import expr as _expr
from ..block_builder import BlockBuilder
from ..expr_functor import ExprMutator, module_pass

MAX_GROWN_BYTES = 64 * 1024

def _static_tensor_sinfos(sinfo):
    """The TensorStructInfos of a static-shaped tensor or tuple of them; None otherwise."""
    if isinstance(sinfo, _expr.TensorStructInfo):
        if not sinfo.shape_known or str(sinfo.dtype) == "void":
            return None
        if not all(isinstance(d, tir.IntImm) for d in sinfo.shape):
            return None
        return [sinfo]
    if isinstance(sinfo, _expr.TupleStructInfo):
        out = []
        for f in sinfo.fields:
            s = _static_tensor_sinfos(f)
            if s is None or len(s) != 1 or not isinstance(f, _expr.TensorStructInfo):
                return None
            out += s
        return out
    return None


def _nbytes(sinfo):
    n = int(np.prod([int(d.value) for d in sinfo.shape], dtype=np.int64))
    return n * np.dtype(str(sinfo.dtype) if str(sinfo.dtype) != "bool" else "bool").itemsize


class _Kernels:
    """Host-compiled PrimFuncs of one pass run, by structure (the same shapes recur: one
    transpose per layer...). Not kept across runs: JIT code freed at interpreter exit, after
    the engine that owns it, crashes the process."""

    def __init__(self):
        self.by_hash = {}

    def get(self, prim):
        from ...tir.build import build as tir_build

        h = structural_hash(prim)
        for cand, fn in self.by_hash.get(h, []):
            if structural_equal(cand, prim):
                return fn
        exe = tir_build(IRModule({"main": prim.with_attr("global_symbol", "main")}), "llvm", jit=True)
        fn = exe["main"]
        self.by_hash.setdefault(h, []).append((prim, fn))
        return fn


class _Folder(ExprMutator):
    def __init__(self, mod, kernels=None):
        super().__init__(mod)
        self.kernels = kernels if kernels is not None else _Kernels()

    def constant_of(self, e):
        """`e` as a Constant / Tuple of constants (through variable bindings), else None."""
        while isinstance(e, _expr.Var):
            e = self.lookup_binding(e)
            if e is None:
                return None
        if isinstance(e, _expr.Constant):
            return e
        if isinstance(e, _expr.Tuple):
            fields = [self.constant_of(f) for f in e.fields]
            return None if any(f is None for f in fields) else _expr.Tuple(fields)
        return None

    def visit_tuple_getitem_(self, e):
        new = super().visit_tuple_getitem_(e)
        t = self.constant_of(new.tuple_value)
        if isinstance(t, _expr.Tuple):
            field = t.fields[new.index]
            if isinstance(field, _expr.Constant):
                return field
        return new

    def visit_call_(self, e):
        call = super().visit_call_(e)
        if not isinstance(call.op, _expr.Op):
            return call
        name = str(call.op.name)
        if name == "relax.call_tir":
            folded = self.fold_call_tir(call)
        elif name == "relax.call_dps_packed":
            folded = None
        else:
            folded = self.fold_op(call)
        return call if folded is None else folded

    def fold_call_tir(self, call):
        if len(call.args) != 2:
            return None  # symbolic shape arguments (tir_vars): nothing static to run
        outs = _static_tensor_sinfos(call.sinfo_args[0]) if len(call.sinfo_args) == 1 else None
        args = self.constant_of(call.args[1])
        if outs is None or args is None:
            return None
        if not _worth_it(outs, [a.data for a in args.fields]):
            return None
        prim = self.builder_._funcs.get(str(call.args[0].name_hint))
        if not isinstance(prim, tir.PrimFunc):
            return None
        from ...runtime import empty
        results = [empty([int(d.value) for d in s.shape], str(s.dtype)) for s in outs]
        self.kernels.get(prim)(*[a.data for a in args.fields], *results)
        consts = [_expr.Constant(r) for r in results]
        return consts[0] if isinstance(call.sinfo_args[0], _expr.TensorStructInfo) else _expr.Tuple(consts)

    def fold_op(self, call):
        from .legalize_ops import LegalizeOps

        args = []
        for a in call.args:
            if isinstance(a, (_expr.ShapeExpr, _expr.PrimValue, _expr.StringImm, _expr.DataTypeImm)):
                args.append(a)
                continue
            c = self.constant_of(a)
            if c is None:
                return None
            args.append(c)
        call = self.builder_.normalize(_expr.Call(call.op, args, dict(call.attrs), list(call.sinfo_args)))
        outs = _static_tensor_sinfos(call.struct_info)
        if outs is None:
            return None
        consts = [c.data for a in args for c in (a.fields if isinstance(a, _expr.Tuple) else [a])
                  if isinstance(c, _expr.Constant)]
        if not _worth_it(outs, consts):
            return None
        # The call alone in a function, legalized: its call_tir chain then folds here.
        bb = BlockBuilder()
        with bb.function("main", []):
            with bb.dataflow():
                out = bb.emit_output(call, "out")
            bb.emit_func_output(out)
        try:
            mod = LegalizeOps()(bb.get())
        except NotImplementedError:
            return None  # an operator without a legalization
        folder = _Folder(mod, self.kernels)
        folded = folder.transform_module()["main"]
        return folder.constant_of(folded.body.body)


def _worth_it(outs, inputs):
    out_bytes = sum(_nbytes(s) for s in outs)
    in_bytes = sum(int(np.prod(t.shape, dtype=np.int64)) * np.dtype(_np_dtype(t.dtype)).itemsize
                   for t in inputs)
    return out_bytes <= max(in_bytes, MAX_GROWN_BYTES)


def _np_dtype(dt):
    s = str(dt)
    return "bool" if s == "bool" else s


def FoldConstant():  # noqa: N802 (TVM's name)
    """The pass: every Relax function's compile-time-computable calls become constants."""
    return module_pass(_Folder, "relax.FoldConstant")
