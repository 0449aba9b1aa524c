"""An input keeps its declared name after OpenVINO compiles away the node behind it."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from perftui.domain.records import RunConfig

pytestmark = pytest.mark.engine


def _model_with_a_vanishing_reshape(path: Path) -> None:
    # x -> Reshape(-1, 4) -> "/a" -> Relu -> y: at a static shape the Reshape is a no-op that
    # OpenVINO removes, and its output name "/a" (sorting before "x") joins the input's names.
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [-1, 4])
    graph = helper.make_graph(
        [
            helper.make_node("Reshape", ["x", "shape"], ["/a"]),
            helper.make_node("Relu", ["/a"], ["y"]),
        ],
        "vanishing_reshape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        [shape],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_compiled_input_keeps_the_declared_name(tmp_path: Path) -> None:
    from perftui.engines.openvino_engine import ENGINE

    model = tmp_path / "m.onnx"
    _model_with_a_vanishing_reshape(model)
    config = RunConfig(batch=2, threads=1, streams=1, requests=1, hint="latency", api="sync")
    prepared = ENGINE.prepare(str(model), "CPU", config, {"x": (2, 4)})
    assert [spec.name for spec in prepared.inputs] == ["x"]
    prepared.bind({"x": np.ones((2, 4), dtype=np.float32)})
    assert prepared.infer_once() > 0
