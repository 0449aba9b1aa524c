"""Optimize a project: make its INT8 version with ONNX Runtime quantization and check what it
costs in accuracy (`perftui optimize`).

- `calibration`: calibration samples from a folder of `.npy`/`.npz` files, or seeded random data.
- `quantize`: the quantization recipe (static QDQ or dynamic), shared with `sample_models/build.py`.
- `accuracy`: FP32 vs INT8 output differences (pure numpy metrics + an ONNX Runtime runner).
- `command`: the `perftui optimize` sub-command.

Importing this package (or `command`) loads neither numpy nor an engine; the work modules load
onnx / onnxruntime inside their functions.
"""
