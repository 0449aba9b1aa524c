"""Optimize a project: make its INT8 version with ONNX Runtime quantization and check what it
costs in accuracy (`perftui optimize`, perftui.cli.optimize; the dashboard's optimize screens).

- `calibration`: calibration samples from a folder of `.npy`/`.npz` files, or seeded random data.
- `quantize`: the quantization recipe (static QDQ or dynamic), shared with `sample_models/build.py`.
- `accuracy`: FP32 vs INT8 output differences (pure numpy metrics + an ONNX Runtime runner).
- `project`: make the INT8 model (`make_int8`, the child's half) and store it (`publish`, the
  parent's half).
- `worker`: the child process; `runner`: the parent side that follows it and stores its result.
- `form`: the optimize dialog's fields; `notes`: how a stored INT8 project was made.

Importing this package, `runner`, `form` or `notes` loads neither numpy nor an engine; the
work modules load onnx / onnxruntime inside their functions.
"""
