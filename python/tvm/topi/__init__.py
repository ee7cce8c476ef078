"""tvm.topi: TE definitions of the tensor operators (what Relax legalizes to), TVM's names.

Each function takes te.Tensors (symbolic shapes allowed) and returns the te.Tensor(s) of the
result; tvm.relax.transform.LegalizeOps turns them into PrimFuncs through BlockBuilder.call_te.
"""

from .broadcast import (add, broadcast_shape, divide, equal, floor_divide, floor_mod, greater,
                        greater_equal, less, less_equal, logical_and, logical_or, maximum,
                        minimum, multiply, not_equal, power, subtract, where)
from .elemwise import (abs, astype, ceil, clip, cos, erf, exp, fast_tanh, floor, identity,  # noqa: A004
                       leaky_relu, log, logical_not, negative, reciprocal, relu, round, rsqrt,
                       sigmoid, sign, sin, sqrt, square, tanh, tan, asin, acos, atan, sinh,
                       cosh, trunc)
from .bitwise import (bitwise_and, bitwise_not, bitwise_or, bitwise_xor, left_shift,
                      right_shift)
from .transform import concatenate, expand_dims, flatten, reshape, squeeze, transpose
from .reduction import max, mean, min, prod, sum  # noqa: A004
from .nn import gelu, gelu_tanh, layer_norm, log_softmax, matmul, silu, softmax
from . import activation, creation, indexing, nn_conv, normalization, pooling  # noqa: F401,E402
from .indexing import (broadcast_to, gather_elements, gather_nd, pad, split, strided_slice,  # noqa: E402
                       take, tile)
