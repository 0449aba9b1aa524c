"""Model inspection: inputs/outputs, operator counts, parameters and theoretical FLOPs.

Reads ONNX (`.onnx`) with the `onnx` package (perftui.inspection.onnx_model) and OpenVINO IR
(`.xml` + `.bin`) with `openvino` (perftui.inspection.openvino_ir); both are imported inside
the functions, so importing this module stays cheap. The conventions of the figures are in
perftui.inspection.conventions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from perftui.domain.model.model_info import ModelInfo
from perftui.domain.model.shapes import ShapeBindings, as_bindings
from perftui.inspection.onnx_model import inspect_onnx
from perftui.inspection.openvino_ir import inspect_ir
from perftui.inspection.validate import model_format, validate_model_file

__all__ = ["inspect_model"]


def inspect_model(
    path: str | os.PathLike[str],
    shapes: ShapeBindings | Mapping[str, Sequence[int]] | None = None,
) -> ModelInfo:
    """Inspect an ONNX or OpenVINO IR model; `shapes` binds input shapes for the FLOPs
    (whole shapes per input, or perftui.domain.model.shapes bindings).

    Raises InputError (one line) for a missing, unsupported or damaged file, or for `shapes`
    that do not fit the model's inputs.
    """
    validate_model_file(path)
    wanted = as_bindings(shapes)
    if model_format(path) == "onnx":
        return inspect_onnx(Path(path), wanted)
    return inspect_ir(Path(path), wanted)
