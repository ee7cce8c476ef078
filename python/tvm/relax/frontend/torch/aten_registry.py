"""The table of aten converters (op overload name -> converter) and its decorator, in a module
of its own so that the converter files (aten_ops.py and its extras) all register into it
without importing one another."""

CONVERTERS = {}
# Nodes that produce nothing the graph computes with (run-time assertions).
NO_OPS = {"aten._assert_tensor_metadata.default", "aten._assert_scalar.default",
          "aten.sym_constrain_range_for_size.default", "aten.sym_constrain_range.default",
          "aten._assert_async.msg", "aten._assert_async.default", "_assert_scalar",
          "aten._functional_assert_async.msg"}


def register(*names):
    """Decorator: the function converts the aten ops `names`."""
    def reg(f):
        for n in names:
            CONVERTERS[n] = f
        return f
    return reg
