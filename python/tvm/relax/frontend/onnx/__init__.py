"""tvm.relax.frontend.onnx: from_onnx (onnx_frontend.py; converters in converters.py)."""

from . import converters_nn  # noqa: F401  (registers the nn/shape converters)
from . import converters_more  # noqa: F401  (registers issue 20's converters)
from . import converters_bitwise  # noqa: F401  (bitwise ops, Xor)
from . import converters_math  # noqa: F401  (Round)
from . import converters_resize  # noqa: F401  (Resize, Upsample)
from . import converters_quant  # noqa: F401  (QuantizeLinear, DequantizeLinear)
from . import converters_scatter  # noqa: F401  (ScatterElements, Scatter, ScatterND)
from . import converters_topk  # noqa: F401  (TopK)
from . import converters_cumprod  # noqa: F401  (CumProd)
from . import converters_conv_transpose  # noqa: F401  (ConvTranspose)
from . import converters_lppool  # noqa: F401  (LpPool)
from . import converters_einsum  # noqa: F401  (Einsum)
from . import converters_grid_sample  # noqa: F401  (GridSample)
from . import converters_qlinear  # noqa: F401  (MatMulInteger, ConvInteger, QLinear*)
from . import converters_rnn  # noqa: F401  (RNN, GRU, LSTM)
from . import converters_scan  # noqa: F401  (Scan)
from . import converters_if  # noqa: F401  (If)
from . import converters_select  # noqa: F401  (ReverseSequence, Compress)
from . import converters_detection  # noqa: F401  (NonZero, NonMaxSuppression, RoiAlign)
from .converters import CONVERTERS, OnnxOpError
from .onnx_frontend import from_onnx

__all__ = ["CONVERTERS", "OnnxOpError", "from_onnx"]
