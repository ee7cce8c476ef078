"""Kernel builders shared by the frontends (onnx, torch): serial TIR building blocks
(serial.py), the detector ops' serial kernels (detection.py) and the rank-sort TE kernel of
TopK / topk / sort (sorting.py)."""
