"""Theoretical FLOPs per node (2 x multiply-accumulates, see perftui.inspection.conventions),
for an ONNX graph with inferred shapes and for an OpenVINO model with static shapes."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from perftui.domain.model_info import NodeFlops

__all__ = ["ir_node_flops", "onnx_node_flops"]


def _conv_macs(out: Sequence[int], weight: Sequence[int], skip: int) -> int:
    """Output elements x (input channels per group x kernel), `skip` = leading weight dims."""
    return math.prod(out) * math.prod(weight[skip:])


def _matmul_macs(a: Sequence[int], out: Sequence[int], transpose_a: bool = False) -> int:
    if not a or not out:
        return 0
    k = a[-2] if transpose_a and len(a) >= 2 else a[-1]
    return math.prod(out) * k


def _onnx_attr(node: Any, name: str, default: int) -> int:
    for attr in node.attribute:
        if attr.name == name:
            return int(attr.i)
    return default


_ONNX_WEIGHT_INDEX = {"Conv": 1, "ConvInteger": 1, "QLinearConv": 3, "ConvTranspose": 1}
_ONNX_MATMUL_A = {"MatMul": 0, "MatMulInteger": 0, "QLinearMatMul": 0, "Gemm": 0}


def onnx_node_flops(graph: Any, shapes: Mapping[str, list[int]]) -> list[NodeFlops]:
    result = []
    for index, node in enumerate(graph.node):
        op = node.op_type
        if node.domain not in ("", "ai.onnx") or (
            op not in _ONNX_WEIGHT_INDEX and op not in _ONNX_MATMUL_A
        ):
            continue
        out = shapes.get(node.output[0]) if node.output else None
        macs = 0
        if op in _ONNX_WEIGHT_INDEX:
            w_idx = _ONNX_WEIGHT_INDEX[op]
            weight = shapes.get(node.input[w_idx]) if len(node.input) > w_idx else None
            if op == "ConvTranspose":
                x = shapes.get(node.input[0])
                if x and weight:
                    macs = _conv_macs(x, weight, 1)
            elif out and weight:
                macs = _conv_macs(out, weight, 1)
        else:
            a = shapes.get(node.input[0])
            trans_a = op == "Gemm" and bool(_onnx_attr(node, "transA", 0))
            if a and out:
                macs = _matmul_macs(a, out, trans_a)
        name = node.name or f"{op}_{index}"
        result.append(NodeFlops(name=name, op_type=op, flops=2 * macs))
    return result


def _ov_static(port: Any) -> list[int] | None:
    shape = port.get_partial_shape()
    return [d.get_length() for d in shape] if shape.is_static else None


_OV_CONV_SKIP = {
    "Convolution": 1,
    "GroupConvolution": 2,
    "ConvolutionBackpropData": 1,
    "GroupConvolutionBackpropData": 2,
}
"""Leading weight dims that are output channels (or groups), not per-output MACs."""


def ir_node_flops(model: Any) -> list[NodeFlops]:
    result = []
    for op in model.get_ordered_ops():
        kind = op.get_type_name()
        skip = _OV_CONV_SKIP.get(kind)
        if skip is None and kind != "MatMul":
            continue
        out = _ov_static(op.output(0))
        macs = 0
        if skip is not None:
            weight = _ov_static(op.input(1))
            base = _ov_static(op.input(0)) if "Backprop" in kind else out
            if weight and base:
                macs = _conv_macs(base, weight, skip)
        else:
            a = _ov_static(op.input(0))
            if a and out:
                macs = _matmul_macs(a, out, bool(op.get_attributes().get("transpose_a")))
        result.append(NodeFlops(name=op.get_friendly_name(), op_type=kind, flops=2 * macs))
    return result
