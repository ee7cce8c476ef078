"""tvm.relax.frontend: model importers (onnx, torch). Each imports its framework only when
used, never at `import tvm`."""
