"""Static shapes of every value of an ONNX graph, for the FLOPs.

ONNX shape inference alone loses dimensions wherever a shape is computed in the graph
(transformers exports: ``Shape -> Gather -> Unsqueeze -> Concat -> Reshape``, Slice ends,
Pad amounts from ``ConstantOfShape``). So small integer computations are folded to constants
with the ONNX reference evaluator (``Shape`` of a value whose shape is known included), and
inference runs again, until nothing new folds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["static_shapes"]

MAX_ROUNDS = 6
FOLD_ELEMENTS = 4096
"""Only tensors this small are folded: shape arithmetic, never weights or activations."""
_NO_FOLD = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial"}


def _infer(model: Any) -> dict[str, list[int]]:
    import onnx

    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception:  # best effort: what cannot be inferred stays unknown
        inferred = model
    out: dict[str, list[int]] = {}
    g = inferred.graph
    for value in (*g.input, *g.value_info, *g.output):
        ttype = value.type.tensor_type
        if ttype.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else -1 for d in ttype.shape.dim]
            if all(d >= 0 for d in dims):
                out[value.name] = dims
    return out


def _fold(model: Any, shapes: Mapping[str, list[int]], values: dict[str, Any]) -> bool:
    """Add to `values` what the graph's small computations give; True if anything was new."""
    import numpy as np
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    opsets = {o.domain or "": o.version for o in model.opset_import}
    new = False
    for node in model.graph.node:
        if node.domain not in ("", "ai.onnx") or node.op_type in _NO_FOLD:
            continue
        if all(out in values for out in node.output if out):
            continue
        if node.op_type == "Shape" and node.input[0] in shapes:
            dims = shapes[node.input[0]]
            attrs = {a.name: a.i for a in node.attribute}
            start, end = attrs.get("start", 0), attrs.get("end", len(dims))
            values[node.output[0]] = np.array(dims[start:end], dtype=np.int64)
            new = True
            continue
        inputs = [name for name in node.input if name]
        if not all(name in values for name in inputs):
            continue
        if any(values[name].size > FOLD_ELEMENTS for name in inputs):
            continue
        try:
            graph_inputs = [helper.make_empty_tensor_value_info(name) for name in inputs]
            outputs = [helper.make_empty_tensor_value_info(o) for o in node.output if o]
            graph = helper.make_graph([node], "fold", graph_inputs, outputs)
            proto = helper.make_model(
                graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()]
            )
            results = ReferenceEvaluator(proto).run(None, {n: values[n] for n in inputs})
        except Exception:  # an op the evaluator cannot run: leave it to inference
            continue
        for name, result in zip([o for o in node.output if o], results, strict=False):
            array = np.asarray(result)
            if array.size <= FOLD_ELEMENTS:
                values[name] = array
                new = True
    return new


def static_shapes(model: Any, static: Mapping[str, tuple[int, ...]]) -> dict[str, list[int]]:
    """Shapes of every value once the graph inputs are fixed to `static` (unknown ones left
    out). `model` is not changed."""
    import onnx
    from onnx import numpy_helper

    work = onnx.ModelProto()
    work.CopyFrom(model)
    # Before IR 4 every initializer was also a graph input; the copy keeps small ones as
    # initializers alone, which inference refuses under IR 3 (then nothing is inferred).
    work.ir_version = max(work.ir_version, 4)
    graph = work.graph
    del graph.value_info[:]
    for value in graph.input:
        if value.name in static:
            shape = value.type.tensor_type.shape
            del shape.dim[:]
            for d in static[value.name]:
                shape.dim.add().dim_value = d
    values: dict[str, Any] = {}
    weights: dict[str, list[int]] = {}
    input_names = {v.name for v in graph.input}
    kept = []
    for tensor in graph.initializer:  # big initializers: typed inputs, their data not needed
        weights[tensor.name] = list(tensor.dims)
        external = tensor.data_location == onnx.TensorProto.EXTERNAL
        if math.prod(tensor.dims) > FOLD_ELEMENTS or external:
            if tensor.name not in input_names:
                graph.input.append(
                    onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims)
                )
        else:
            kept.append(tensor)
            values[tensor.name] = numpy_helper.to_array(tensor)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    shapes = _infer(work)
    for _ in range(MAX_ROUNDS):
        if not _fold(work, shapes, values):
            break
        folded = [name for name in values if name not in weights]
        weights.update({name: list(values[name].shape) for name in folded})
        graph.initializer.extend(numpy_helper.from_array(values[n], n) for n in folded)
        producers = set(folded)
        remaining = [n for n in graph.node if not all(o in producers for o in n.output if o)]
        del graph.node[:]
        graph.node.extend(remaining)
        shapes = _infer(work)
    return {**shapes, **weights}
