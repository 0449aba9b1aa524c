"""Make an ONNX model fit for ONNX Runtime's quantization tools, saying what was changed.

Two things published models do that the tools do not handle:

- **Weights that are also graph inputs.** ONNX IR version 3 (model-zoo models exported before
  2019) lists every initializer as a graph input too. The tools then treat weights and shape
  constants as inputs to be fed: the calibration session stops with ``Required inputs
  ([...]) are missing``, the checker with ``... in initializer but not in graph input``. Such
  inputs are dropped from ``graph.input`` (IR version 4 lets initializers stand alone); the
  values stay as the model's own constants, as every engine already treats them.
- **Old opsets.** Per-channel QDQ needs opset 13 (``QuantizeLinear`` with an axis); older
  models are converted with ``onnx.version_converter``.

onnx is imported inside the functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError

QUANT_OPSET = 13
"""The default-domain opset the quantized model needs (per-channel QuantizeLinear)."""
INITIALIZERS_APART_IR = 4
"""The first ONNX IR version whose initializers need not be graph inputs."""


def default_opset(model: Any) -> int:
    """The model's default-domain ("" or "ai.onnx") opset; 1 if it imports none."""
    versions = [op.version for op in model.opset_import if op.domain in ("", "ai.onnx")]
    return max(versions, default=1)


def drop_initializer_inputs(model: Any) -> int:
    """In place: remove graph inputs that an initializer backs; how many were removed."""
    constants = {t.name for t in model.graph.initializer}
    kept = [value for value in model.graph.input if value.name not in constants]
    removed = len(model.graph.input) - len(kept)
    if removed:
        del model.graph.input[:]
        model.graph.input.extend(kept)
        model.ir_version = max(model.ir_version, INITIALIZERS_APART_IR)
    return removed


def upgrade_opset(model: Any, name: str) -> Any:
    """`model` converted to opset QUANT_OPSET (the same model if it has that or newer)."""
    from onnx import version_converter

    if default_opset(model) >= QUANT_OPSET:
        return model
    try:
        return version_converter.convert_version(model, QUANT_OPSET)
    except Exception as exc:  # the converter raises RuntimeError and others, multi-line
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise InputError(
            f"{name} uses opset {default_opset(model)}, and converting it to opset {QUANT_OPSET}"
            f" for quantization failed: {first.strip()[:200]}"
        ) from None


def prepare_for_quantization(source: Path, target: Path) -> tuple[str, ...]:
    """Write `source` as the tools need it to `target`; what was changed, one line each
    (empty, with `target` a plain copy, when nothing needed changing)."""
    import onnx

    model = onnx.load(str(source))
    changes: list[str] = []
    removed = drop_initializer_inputs(model)
    if removed:
        changes.append(
            f"{removed} graph inputs backed by initializers (weights, shapes) were kept as"
            " constants, not inputs"
        )
    opset = default_opset(model)
    model = upgrade_opset(model, source.name)
    if default_opset(model) != opset:
        changes.append(f"converted from opset {opset} to {QUANT_OPSET} before quantizing")
    onnx.save(model, str(target))
    return tuple(changes)
