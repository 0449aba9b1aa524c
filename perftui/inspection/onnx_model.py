"""Inspection of an ONNX model with the `onnx` package (imported inside the functions)."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.model.model_info import ModelInfo
from perftui.domain.model.shapes import ShapeBindings
from perftui.domain.records import TensorSpec
from perftui.inspection.conventions import SMALL_INT_CONSTANT, model_info, resolve_shapes
from perftui.inspection.flops import onnx_node_flops
from perftui.inspection.shape_fold import static_shapes

__all__ = ["inspect_onnx"]

_INT_DTYPES = {"int32", "int64", "uint64", "uint32"}


def inspect_onnx(p: Path, shapes: ShapeBindings) -> ModelInfo:
    import onnx

    try:
        model = onnx.load(str(p), load_external_data=False)
    except Exception as exc:  # protobuf DecodeError and friends: never show their traceback
        raise InputError(
            f"could not parse {p} as ONNX (damaged or truncated?): {_first_line(exc)}"
        ) from exc
    graph = model.graph
    init_names = {t.name for t in graph.initializer}
    inputs = tuple(_onnx_spec(v) for v in graph.input if v.name not in init_names)
    outputs = tuple(_onnx_spec(v) for v in graph.output)

    counts: Counter[str] = Counter()
    parameters = parameter_bytes = 0
    for g in _onnx_graphs(graph):
        for node in g.node:
            counts[_onnx_op_name(node)] += 1
            if node.op_type == "Constant":
                for attr in node.attribute:
                    if attr.name == "value" and attr.HasField("t"):
                        n, b = _onnx_tensor_size(attr.t)
                        parameters, parameter_bytes = parameters + n, parameter_bytes + b
        for tensor in g.initializer:
            n, b = _onnx_tensor_size(tensor)
            parameters, parameter_bytes = parameters + n, parameter_bytes + b
        n, b = _generated_weights(g)
        parameters, parameter_bytes = parameters + n, parameter_bytes + b

    static = resolve_shapes(inputs, shapes)
    value_shapes = static_shapes(model, static)
    node_flops = tuple(onnx_node_flops(graph, value_shapes))
    return model_info(
        p, "onnx", inputs, outputs, counts, (parameters, parameter_bytes), node_flops, static
    )


def _generated_weights(graph: Any) -> tuple[int, int]:
    """(elements, bytes) of the weights a graph makes at load time: ConstantOfShape of a
    constant shape (the old model zoo's light models store their weights this way)."""
    import numpy as np
    from onnx import numpy_helper

    shapes = {t.name: t for t in graph.initializer}
    elements = size = 0
    for node in graph.node:
        if node.op_type != "ConstantOfShape" or not node.input or node.input[0] not in shapes:
            continue
        dims = numpy_helper.to_array(shapes[node.input[0]]).reshape(-1)
        value = next((a.t for a in node.attribute if a.name == "value"), None)
        itemsize = np.dtype(_onnx_dtype(value.data_type)).itemsize if value is not None else 4
        count = math.prod(int(d) for d in dims)
        elements, size = elements + count, size + count * itemsize
    return elements, size


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def _onnx_graphs(graph: Any) -> list[Any]:
    """The graph and every subgraph (If/Loop/Scan bodies), depth first."""
    out = [graph]
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("g"):
                out.extend(_onnx_graphs(attr.g))
            for sub in attr.graphs:
                out.extend(_onnx_graphs(sub))
    return out


def _onnx_op_name(node: Any) -> str:
    return node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"


def _onnx_dtype(elem_type: int) -> str:
    from onnx import helper

    try:
        return str(helper.tensor_dtype_to_np_dtype(elem_type).name)
    except (KeyError, TypeError, ValueError):
        return "unknown"


def _onnx_tensor_size(tensor: Any) -> tuple[int, int]:
    """(elements, bytes) of an initializer; 0 for small integer shape/axes constants."""
    import numpy as np

    count = math.prod(tensor.dims)
    dtype = _onnx_dtype(tensor.data_type)
    if dtype in _INT_DTYPES and count <= SMALL_INT_CONSTANT:
        return 0, 0
    try:
        itemsize = np.dtype(dtype).itemsize
    except TypeError:
        itemsize = 0
    if tensor.data_type in (16, 17, 18, 19, 20):  # bfloat16, float8 variants
        itemsize = 2 if tensor.data_type == 16 else 1
    return count, count * itemsize


def _onnx_spec(value: Any) -> TensorSpec:
    ttype = value.type.tensor_type
    dims: list[int | str] = []
    if ttype.HasField("shape"):
        for d in ttype.shape.dim:
            if d.HasField("dim_value") and d.dim_value >= 0:
                dims.append(int(d.dim_value))
            else:
                dims.append(d.dim_param or "?")
    return TensorSpec(name=value.name, dtype=_onnx_dtype(ttype.elem_type), shape=tuple(dims))
