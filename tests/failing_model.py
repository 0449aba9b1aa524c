"""A model whose runs fail inside the worker for some batch sizes and pass the checks before
any run: an odd batch cannot be reshaped to rows of 8 (`x[N,4]` -> `[-1,8]`), an even one can.
It stands in for an engine failure in the middle of a matrix, on any machine, in milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper


def odd_batches_fail(folder: Path) -> Path:
    """Write the model into `folder` and return its path."""
    rows = helper.make_tensor("rows", TensorProto.INT64, [2], [-1, 8])
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "rows"], ["y"])],
        "odd_batches_fail",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 8])],
        [rows],
    )
    path = folder / "odd_batches_fail.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path
