"""Optimize a project: make its INT8 version and check, on the project's own engine and device,
that it runs and what it costs in accuracy (`perftui optimize`, perftui.cli.optimize; the
dashboard's optimize screens).

- `calibration`: calibration samples of seeded random data; `calibration_folder`: from a folder
  of `.npy`/`.npz` files.
- `quantize`: the recipes: ONNX Runtime's tools (static QDQ or dynamic) for ONNX Runtime
  projects, shared with `sample_models/build.py`; `nncf_recipe`: NNCF into OpenVINO IR for
  OpenVINO projects; `onnx_prepare`: fits old-opset models to ONNX Runtime's tools.
- `on_engine`: compile and run a model on the project's engine (the check before saving).
- `accuracy`: FP32 vs INT8 output differences (pure numpy metrics), run on that engine.
- `project`: make the INT8 model (`make_int8`, the child's half); `publish`: store it (the
  parent's half).
- `worker`: the child process; `runner`: the parent side that follows it and stores its result.
- `form`: the optimize dialog's fields; `notes`: how a stored INT8 project was made.

Importing this package, `runner`, `form` or `notes` loads neither numpy nor an engine; the
work modules load onnx / onnxruntime / openvino / nncf inside their functions.
"""
