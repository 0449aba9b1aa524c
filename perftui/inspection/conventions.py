"""The conventions of model inspection, shared by the ONNX and the OpenVINO IR readers.

* FLOPs are theoretical: **2 x multiply-accumulates** of Conv (incl. grouped / depthwise),
  ConvTranspose, ConvInteger, QLinearConv, MatMul, MatMulInteger, QLinearMatMul and Gemm
  and Einsum (OpenVINO: Convolution, GroupConvolution, ConvolutionBackpropData, MatMul), on
  shapes inferred with the graph's shape arithmetic folded (perftui.inspection.shape_fold).
  Cheap ops (elementwise, LayerNorm, Softmax, GELU: `flops.PER_ELEMENT`) are counted per
  element as `cheap` nodes, apart from `ModelInfo.flops`. A node whose shapes stay unknown is
  `known=False`, never a silent 0. Nodes inside ONNX control-flow subgraphs (If/Loop/Scan
  bodies) are not counted (their operators are, in `op_counts`).
* FLOPs are for **batch 1**: a dynamic first dimension of an input becomes 1, any other dynamic
  dimension becomes `DEFAULT_DYNAMIC_DIM` (128, e.g. a sequence length), unless `shapes`
  binds it (`seq=256`, `input_ids[1,256]`, `[1,256]`: perftui.domain.model.shapes).
  `ModelInfo.flops_shapes` records the shapes used, `ModelInfo.defaulted` the dimensions
  that took the default.
* Parameters are the elements of all initializers / constants, except small integer tensors
  (int32/int64/uint64 with at most `SMALL_INT_CONSTANT` elements: shapes, axes, indices).
  Quantized weights count at their stored size (an int8 weight is 1 byte).
* Dynamic dimensions in `TensorSpec.shape` are strings: the ONNX `dim_param` name, or "?"
  where the model does not name them (OpenVINO IR never does).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from perftui.domain.errors import InputError
from perftui.domain.model.model_info import ModelInfo, NodeFlops
from perftui.domain.model.shapes import ShapeBindings, as_bindings, bind_shapes, fmt_shape
from perftui.domain.records import TensorSpec

__all__ = [
    "DEFAULT_DYNAMIC_DIM",
    "SMALL_INT_CONSTANT",
    "fmt_shape",
    "model_info",
    "resolve_shapes",
]

DEFAULT_DYNAMIC_DIM = 128
"""Value substituted for a dynamic non-batch dimension when computing FLOPs."""
SMALL_INT_CONSTANT = 16
"""Integer constants up to this many elements are shape/axes data, not parameters."""


def resolve_shapes(
    inputs: Sequence[TensorSpec], shapes: ShapeBindings | Mapping[str, Sequence[int]]
) -> dict[str, tuple[int, ...]]:
    """Static shape per input: what `shapes` binds (perftui.domain.model.shapes), then a dynamic
    first dimension -> 1 and any other dynamic dimension -> DEFAULT_DYNAMIC_DIM."""
    bound = bind_shapes(inputs, as_bindings(shapes))
    resolved: dict[str, tuple[int, ...]] = {}
    for spec in inputs:
        dims = bound[spec.name]
        for dim, declared in zip(dims, spec.shape, strict=True):
            if isinstance(declared, int) and declared >= 0 and dim != declared:
                raise InputError(
                    f"shape {fmt_shape(dims)} does not fit input {spec.name!r} "
                    f"{fmt_shape(spec.shape)}"
                )
        resolved[spec.name] = tuple(
            d if isinstance(d, int) and d >= 0 else (1 if i == 0 else DEFAULT_DYNAMIC_DIM)
            for i, d in enumerate(dims)
        )
    return resolved


def model_info(
    p: Path,
    fmt: str,
    inputs: tuple[TensorSpec, ...],
    outputs: tuple[TensorSpec, ...],
    counts: Counter[str],
    parameters: tuple[int, int],
    node_flops: tuple[NodeFlops, ...],
    static: dict[str, tuple[int, ...]],
) -> ModelInfo:
    """The record of one inspection: operators most frequent first, FLOPs summed over nodes;
    `parameters` is (elements, bytes)."""
    return ModelInfo(
        path=str(p),
        format=fmt,
        inputs=inputs,
        outputs=outputs,
        op_counts=dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        parameters=parameters[0],
        parameter_bytes=parameters[1],
        flops=sum(n.flops for n in node_flops if not n.cheap),
        node_flops=node_flops,
        flops_shapes=static,
    )
