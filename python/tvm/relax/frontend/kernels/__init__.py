"""Kernel builders shared by the frontends (onnx, torch), so that neither imports the other:
serial TIR building blocks (serial.py), the detector ops' serial kernels (detection.py), the
rank-sort TE kernel of TopK / topk / sort (sorting.py), and the TE kernels of Einsum / einsum
(einsum.py), ScatterElements / ScatterND / scatter (scatter.py) and ConvTranspose /
conv_transpose (conv_transpose.py)."""
