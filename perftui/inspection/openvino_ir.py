"""Inspection of an OpenVINO IR model (`.xml` + `.bin`) with `openvino` (imported inside)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.model.model_info import ModelInfo
from perftui.domain.model.shapes import ShapeBindings
from perftui.domain.records import TensorSpec
from perftui.inspection.conventions import (
    SMALL_INT_CONSTANT,
    fmt_shape,
    model_info,
    resolve_shapes,
)
from perftui.inspection.flops import ir_node_flops

__all__ = ["inspect_ir"]


def inspect_ir(p: Path, shapes: ShapeBindings) -> ModelInfo:
    import openvino as ov

    core = ov.Core()
    try:
        model = core.read_model(str(p))
    except Exception as exc:  # openvino raises RuntimeError with a multi-line C++ trace
        raise InputError(
            f"could not read OpenVINO IR {p} (damaged, or written by a newer OpenVINO?): "
            f"{_ov_message(exc)}"
        ) from exc

    inputs = tuple(_ov_spec(port) for port in model.inputs)
    outputs = tuple(_ov_spec(port) for port in model.outputs)
    counts: Counter[str] = Counter()
    parameters = parameter_bytes = 0
    for op in model.get_ordered_ops():
        kind = op.get_type_name()
        if kind == "Constant":
            n, b = _ov_constant_size(op)
            parameters, parameter_bytes = parameters + n, parameter_bytes + b
        elif kind not in ("Parameter", "Result"):
            counts[kind] += 1

    static = resolve_shapes(inputs, shapes)
    if any(spec.dynamic_dims for spec in inputs) or shapes:
        try:
            model.reshape(
                {
                    port: ov.PartialShape(list(static[spec.name]))
                    for port, spec in zip(model.inputs, inputs, strict=True)
                }
            )
        except Exception as exc:
            if shapes:
                raise InputError(
                    f"cannot reshape {p} to {_fmt_static(static)}: {_ov_message(exc)}"
                ) from exc
    node_flops = tuple(ir_node_flops(model))
    return model_info(
        p, "openvino-ir", inputs, outputs, counts, (parameters, parameter_bytes), node_flops, static
    )


def _fmt_static(static: Mapping[str, tuple[int, ...]]) -> str:
    return ", ".join(f"{k}{fmt_shape(v)}" for k, v in static.items())


def _ov_message(exc: BaseException) -> str:
    """The useful line of an OpenVINO exception (they embed source paths and check names)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith(("Exception from", "Check '"))]
    return (useful or lines or [type(exc).__name__])[0][:200]


def _ov_spec(port: Any) -> TensorSpec:
    names = port.get_names()
    name = sorted(names)[0] if names else port.get_node().get_friendly_name()
    pshape = port.get_partial_shape()
    dims: tuple[int | str, ...] = ()
    if pshape.rank.is_static:
        dims = tuple(d.get_length() if d.is_static else "?" for d in pshape)
    try:
        dtype = port.get_element_type().to_dtype().name
    except Exception:
        dtype = port.get_element_type().get_type_name()
    return TensorSpec(name=name, dtype=dtype, shape=dims)


def _ov_constant_size(op: Any) -> tuple[int, int]:
    shape = op.get_output_partial_shape(0)
    if not shape.is_static:
        return 0, 0
    count = math.prod(d.get_length() for d in shape)
    etype = op.get_output_element_type(0)
    if etype.get_type_name() in ("i32", "i64", "u32", "u64") and count <= SMALL_INT_CONSTANT:
        return 0, 0
    return count, (count * etype.bitwidth + 7) // 8
