"""Theoretical FLOPs per node (2 x multiply-accumulates, see perftui.inspection.conventions),
for an ONNX graph with inferred shapes and for an OpenVINO model with static shapes."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from perftui.domain.model.model_info import NodeFlops

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


PER_ELEMENT = {
    **dict.fromkeys(("Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Erf", "Tanh", "Relu"), 1),
    **dict.fromkeys(("Sigmoid", "Clip", "Where", "Max", "Min", "Neg", "Exp", "Abs"), 1),
    **dict.fromkeys(("HardSigmoid", "HardSwish", "LeakyRelu", "PRelu", "Elu"), 1),
    "Softmax": 3,  # exp, sum, divide
    "LayerNormalization": 5,  # mean, variance, normalise, scale, shift
    "Gelu": 8,
    "BatchNormalization": 2,
    "GlobalAveragePool": 1,
    "ReduceMean": 1,
}
"""The cheap ops, counted as FLOPs per output element (per input element for reductions)."""
_REDUCING = {"GlobalAveragePool", "ReduceMean"}
_FUSIBLE = set(PER_ELEMENT) - _REDUCING - {"Softmax", "LayerNormalization"}
"""Elementwise ops an engine may fold into the Conv or MatMul before them."""
FUSE_DEPTH = 3
"""How many single-consumer elementwise nodes to follow (bias, activation, a scale)."""


def _fused_chain(
    first: Any,
    consumers: Callable[[Any], list[Any]],
    name: Callable[[Any], str],
    fusible: Callable[[Any], bool],
) -> tuple[str, ...]:
    """Names of the fusible nodes a node's output flows into, one consumer at a time.
    `consumers(node)` lists the nodes reading its first output; `name` and `fusible` read one."""
    names: list[str] = []
    node = first
    for _ in range(FUSE_DEPTH):
        readers = consumers(node)
        if len(readers) != 1 or not fusible(readers[0]):
            break
        node = readers[0]
        names.append(name(node))
    return tuple(names)


def _einsum_macs(node: Any, shapes: Mapping[str, list[int]]) -> int | None:
    """Product of the sizes of every index of the equation (each output element sums over
    the contracted ones)."""
    equation = next((a.s.decode() for a in node.attribute if a.name == "equation"), "")
    terms = equation.replace(" ", "").split("->")[0].split(",")
    sizes: dict[str, int] = {}
    for term, name in zip(terms, node.input, strict=False):
        shape = shapes.get(name)
        if shape is None or "." in term or len(term) != len(shape):
            return None
        sizes.update(zip(term, shape, strict=True))
    return math.prod(sizes.values()) if sizes else None


def _onnx_macs(node: Any, shapes: Mapping[str, list[int]]) -> int | None:
    """Multiply-accumulates of a Conv/MatMul-like node; None where its shapes are unknown."""
    op = node.op_type
    out = shapes.get(node.output[0]) if node.output else None
    if op == "Einsum":
        return _einsum_macs(node, shapes)
    if op in _ONNX_WEIGHT_INDEX:
        w_idx = _ONNX_WEIGHT_INDEX[op]
        weight = shapes.get(node.input[w_idx]) if len(node.input) > w_idx else None
        base = shapes.get(node.input[0]) if op == "ConvTranspose" else out
        return _conv_macs(base, weight, 1) if base and weight else None
    a = shapes.get(node.input[0])
    trans_a = op == "Gemm" and bool(_onnx_attr(node, "transA", 0))
    return _matmul_macs(a, out, trans_a) if a and out else None


def onnx_node_flops(graph: Any, shapes: Mapping[str, list[int]]) -> list[NodeFlops]:
    """FLOPs of every counted node; `known` False where its shapes could not be inferred."""
    readers: dict[str, list[Any]] = {}
    for node in graph.node:
        for value in node.input:
            readers.setdefault(value, []).append(node)
    result = []
    for index, node in enumerate(graph.node):
        op = node.op_type
        if node.domain not in ("", "ai.onnx"):
            continue
        if op in _ONNX_WEIGHT_INDEX or op in _ONNX_MATMUL_A or op == "Einsum":
            macs = _onnx_macs(node, shapes)
            flops = None if macs is None else 2 * macs
        elif op in PER_ELEMENT:
            counted = shapes.get(node.input[0] if op in _REDUCING else node.output[0])
            flops = None if counted is None else PER_ELEMENT[op] * math.prod(counted)
        else:
            continue
        name = node.name or f"{op}_{index}"
        cheap = op in PER_ELEMENT
        fused = (
            ()
            if cheap
            else _fused_chain(
                node,
                lambda n: readers.get(n.output[0], []) if n.output else [],
                lambda n: n.name,
                lambda n: n.op_type in _FUSIBLE,
            )
        )
        result.append(
            NodeFlops(name, op, flops or 0, known=flops is not None, cheap=cheap, fused_names=fused)
        )
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


_OV_PER_ELEMENT = {
    **dict.fromkeys(("Add", "Subtract", "Multiply", "Divide", "Power", "Sqrt", "Erf"), 1),
    **dict.fromkeys(("Tanh", "Relu", "Sigmoid", "Clamp", "Select", "Maximum", "Minimum"), 1),
    **dict.fromkeys(("HSigmoid", "HSwish", "Swish", "PRelu", "Elu", "Exp", "Abs"), 1),
    "Softmax": 3,
    "SoftMax": 3,
    "MVN": 4,  # LayerNorm's mean, variance and normalise; its scale and shift are Multiply, Add
    "Gelu": 8,
}
"""OpenVINO's names of the cheap ops of PER_ELEMENT."""
_OV_FUSIBLE = set(_OV_PER_ELEMENT) - {"Softmax", "SoftMax", "MVN"}


def ir_node_flops(model: Any) -> list[NodeFlops]:
    """FLOPs of every counted op of an OpenVINO model (static shapes after a reshape)."""
    result = []
    for op in model.get_ordered_ops():
        kind = op.get_type_name()
        skip = _OV_CONV_SKIP.get(kind)
        out = _ov_static(op.output(0)) if op.get_output_size() else None
        flops: int | None = None
        if skip is not None:
            weight = _ov_static(op.input(1))
            base = _ov_static(op.input(0)) if "Backprop" in kind else out
            if weight and base:
                flops = 2 * _conv_macs(base, weight, skip)
        elif kind == "MatMul":
            a = _ov_static(op.input(0))
            if a and out:
                flops = 2 * _matmul_macs(a, out, bool(op.get_attributes().get("transpose_a")))
        elif kind in _OV_PER_ELEMENT:
            if op.input(0).get_source_output().get_node().get_type_name() == "Constant":
                continue  # constant folding leftovers, not run per request
            flops = None if out is None else _OV_PER_ELEMENT[kind] * math.prod(out)
        else:
            continue
        name = op.get_friendly_name()
        cheap = kind in _OV_PER_ELEMENT
        fused = (
            ()
            if cheap
            else _fused_chain(
                op,
                lambda n: [i.get_node() for i in n.output(0).get_target_inputs()],
                lambda n: n.get_friendly_name(),
                lambda n: n.get_type_name() in _OV_FUSIBLE,
            )
        )
        result.append(
            NodeFlops(
                name, kind, flops or 0, known=flops is not None, cheap=cheap, fused_names=fused
            )
        )
    return result
