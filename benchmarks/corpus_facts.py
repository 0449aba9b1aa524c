"""The model-facts half of the corpus (benchmarks/corpus.py): old model-zoo graphs made from
the exported architectures, FLOPs against the published figures, the precision each run
actually ran, and how much of each INT8 model's time runs in 8-bit layers.

Old model-zoo graphs (Inception v2, DenseNet-121, ShuffleNet in the ONNX model zoo) are ONNX
IR version 3, opset 9, batch fixed at 1, every weight also a graph input, and their light
variants make the weights at load time with ConstantOfShape. `old_opset` turns an export into
such a graph: it keeps the architecture's every shape and FLOP, not its weights' values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

PUBLISHED_GMACS = {
    "resnet-50": 4.09,
    "mobilenet-v2": 0.30,
    "convnext-tiny": 4.46,
    "vit-base": 17.56,
}
"""Published multiply-accumulates per 224x224 image, in G (torchvision's model tables,
which call them GFLOPS); perftui counts a FLOP as half a MAC, so it should show 2x these."""
OLD_OPSET = 9
FOLDED_WEIGHT = 1024
"""Float initializers of at least this many elements become ConstantOfShape nodes."""


def old_opset(source: Path, target: Path) -> Path:
    """`source` (an opset 9 export: ONNX's version converter cannot go down that far) as an
    IR 3 graph at batch 1, its big weights made by ConstantOfShape and every remaining
    initializer also a graph input."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    for value in (*graph.input, *graph.output):
        dims = value.type.tensor_type.shape.dim
        if dims and dims[0].dim_param:
            dims[0].dim_value = 1  # the old zoo fixed the batch
    kept, made = [], []
    for tensor in graph.initializer:
        array = numpy_helper.to_array(tensor)
        if array.dtype == np.float32 and array.size >= FOLDED_WEIGHT:
            shape = numpy_helper.from_array(
                np.array(array.shape, np.int64), f"{tensor.name}__SHAPE"
            )
            kept.append(shape)
            fill = numpy_helper.from_array(np.array([float(array.mean())], np.float32))
            made.append(
                helper.make_node("ConstantOfShape", [shape.name], [tensor.name], value=fill)
            )
        else:
            kept.append(tensor)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = [*made, *graph.node]
    del graph.node[:]
    graph.node.extend(nodes)
    graph.input.extend(
        helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in kept
    )
    model.ir_version = 3
    target.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(target))
    return target


def flops_row(name: str, inspected: dict[str, Any]) -> str:
    """'resnet-50  8.18 G  published 4.09 GMAC = 8.18 G  1.00x' (or no published figure)."""
    flops = inspected.get("flops") or 0
    published = PUBLISHED_GMACS.get(name.removesuffix("-opset9"))
    params = inspected.get("parameters") or 0
    text = f"{name:<22} {flops / 1e9:8.3f} G  params {params / 1e6:7.2f} M"
    if published is None:
        return text + "  (no published figure)"
    ratio = flops / 2e9 / published
    return text + f"  published {published:.2f} GMAC = {2 * published:.2f} G  {ratio:5.2f}x"


def coverage_row(name: str, engine: str, shown: dict[str, Any]) -> str:
    """The 8-bit share of the INT8 project's profiled run (`perftui show --json`)."""
    from perftui.domain.model.int8_coverage import int8_coverage
    from perftui.domain.records import RunResult

    runs = [RunResult.from_dict(doc) for doc in shown.get("runs", []) if doc.get("layers")]
    found = int8_coverage(runs[0].layers or ()) if runs else None
    text = found.text() if found else "no profiled run"
    return f"{name:<22} {engine:<12} {text}"
