"""The conventions of model inspection, shared by the ONNX and the OpenVINO IR readers.

* FLOPs are theoretical: **2 x multiply-accumulates** of Conv (incl. grouped / depthwise),
  ConvTranspose, ConvInteger, QLinearConv, MatMul, MatMulInteger, QLinearMatMul and Gemm
  (OpenVINO: Convolution, GroupConvolution, ConvolutionBackpropData, MatMul). Bias adds,
  activations, normalisations and softmax are not counted, nor are nodes inside ONNX
  control-flow subgraphs (If/Loop/Scan bodies; their operators are counted in `op_counts`).
* FLOPs are for **batch 1**: a dynamic first dimension of an input becomes 1, any other dynamic
  dimension becomes `DEFAULT_DYNAMIC_DIM` (128, e.g. a sequence length), unless `shapes`
  gives the full shape of that input. `ModelInfo.flops_shapes` records the shapes used.
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
from perftui.domain.model_info import ModelInfo, NodeFlops
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
    inputs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]]
) -> dict[str, tuple[int, ...]]:
    """Static shape per input: given shapes, else dynamic dim 0 -> 1, others -> default."""
    names = {spec.name for spec in inputs}
    unknown = sorted(set(shapes) - names)
    if unknown:
        raise InputError(
            f"unknown input {unknown[0]!r} in shapes; the model's inputs are: "
            + ", ".join(sorted(names))
        )
    resolved: dict[str, tuple[int, ...]] = {}
    for spec in inputs:
        given = shapes.get(spec.name)
        if given is not None:
            if len(given) != len(spec.shape):
                raise InputError(
                    f"shape for input {spec.name!r} has {len(given)} dims, the model expects "
                    f"{len(spec.shape)}: {fmt_shape(spec.shape)}"
                )
            for dim, want in zip(spec.shape, given, strict=True):
                if want <= 0 or (isinstance(dim, int) and dim >= 0 and dim != want):
                    raise InputError(
                        f"shape {list(given)} does not fit input {spec.name!r} "
                        f"{fmt_shape(spec.shape)}"
                    )
            resolved[spec.name] = given
            continue
        resolved[spec.name] = tuple(
            d if isinstance(d, int) and d >= 0 else (1 if i == 0 else DEFAULT_DYNAMIC_DIM)
            for i, d in enumerate(spec.shape)
        )
    return resolved


def fmt_shape(shape: Sequence[int | str]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


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
        flops=sum(n.flops for n in node_flops),
        node_flops=node_flops,
        flops_shapes=static,
    )
