"""Einsum as one TE kernel, for ONNX Einsum (onnx/converters_einsum.py) and torch einsum
(torch/aten_tensor_extra.py): any equation numpy accepts for its operands' static shapes.
The output's letters are its loops, every other letter a reduction, each operand read at its
letters (a letter repeated in one operand reads its diagonal). "..." stands for the same
leading axes in every operand (broadcast numpy-style: an extent of 1 reads index 0); with no
"->" the output is "..." then the letters used once, in alphabetical order."""

_SPARE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def parse(eq, shapes):
    """([letters of each operand], output letters, {letter: extent}); "..." replaced by
    upper-case letters (the equation's own are lower case)."""
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError("Einsum: %d operands for equation %r" % (len(shapes), eq))
    ell = max((len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes) if "..." in t),
              default=0)
    ell_letters = _SPARE[:ell]
    ops, extents = [], {}
    for t, s in zip(terms, shapes):
        if "..." in t:
            n = len(s) - len(t.replace("...", ""))
            t = t.replace("...", ell_letters[ell - n:])
        if len(t) != len(s):
            raise ValueError("Einsum: term %r for an operand of rank %d" % (t, len(s)))
        for c, d in zip(t, s):
            if d != 1 or c not in extents:
                if c in extents and extents[c] not in (1, d):
                    raise ValueError("Einsum: letter %r is %d and %d" % (c, extents[c], d))
                extents[c] = d
        ops.append(t)
    if arrow:
        out = rhs.replace("...", ell_letters)
    else:
        counts = {}
        for t in ops:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell_letters + "".join(sorted(c for c, n in counts.items()
                                           if n == 1 and c not in ell_letters))
    return ops, out, extents


def einsum(*xs, ops, out, extents):
    """The TE tensor of the equation `parse` split into `ops`, `out` and `extents`."""
    from .... import te, tir

    red = [c for c in dict.fromkeys("".join(ops)) if c not in out]
    dt = str(xs[0].dtype)
    # bfloat16 has no arithmetic in the codegen (nor a zero for the sum): compute in float32
    acc = "float32" if dt == "bfloat16" else dt

    def body(env):
        val = None
        for x, t in zip(xs, ops):
            idx = tuple(env[c] if int(d) != 1 or extents[c] == 1 else tir.const(0, "int64")
                        for c, d in zip(t, x.shape))
            v = x[idx] if acc == dt else tir.Cast(acc, x[idx])
            val = v if val is None else val * v
        return val

    def f(*i):
        env = dict(zip(out, i))
        if not red:
            return body(env) if acc == dt else tir.Cast(dt, body(env))
        axes = [te.reduce_axis((0, tir.const(extents[c], "int64")), "r_" + c) for c in red]
        env.update(zip(red, axes))
        return te.sum(body(env), axis=axes)
    shape = [tir.const(extents[c], "int64") for c in out]
    y = te.compute(shape, f, name="einsum")
    if acc != dt and red:
        y = te.compute(shape, lambda *i: tir.Cast(dt, y[i]), name="einsum_cast")
    return y
