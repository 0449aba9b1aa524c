"""FLOPs and parameters of old model-zoo graphs: ONNX IR version 3, opset 9, every weight
also a graph input, weights made at load time by ConstantOfShape."""

from __future__ import annotations

from pathlib import Path

from perftui.cli.textfmt import flops_line
from perftui.inspection import inspect_model
from tests.optimize_models import old_opset_cnn


def test_an_ir3_graph_gets_every_conv_shape_and_its_generated_weights(tmp_path: Path):
    info = inspect_model(old_opset_cnn(tmp_path / "old.onnx"))
    by_op = {node.op_type: node for node in info.node_flops}
    assert not info.unknown_flops
    assert by_op["Conv"].flops == 2 * (4 * 8 * 8) * (3 * 3 * 3)  # out elements x C_in x k x k
    assert by_op["Gemm"].flops == 2 * 64 * 10
    assert info.flops == by_op["Conv"].flops + by_op["Gemm"].flops
    # stored: BatchNorm's three vectors and the Gemm; made by ConstantOfShape: the Conv's
    # weight and bias and BatchNorm's scale (the shapes that make them are not counted)
    assert info.parameters == (3 * 4 + 640 + 10) + (4 * 3 * 3 * 3 + 4 + 4)
    assert info.to_dict()["flops_convention"] == "2 x multiply-accumulates"
    assert flops_line(info).startswith("FLOPs (2 x MACs) at data[1,3,8,8]: ")


def test_a_static_model_is_never_told_to_bind_dynamic_dimensions(tmp_path: Path):
    import onnx

    path = old_opset_cnn(tmp_path / "old.onnx")
    broken = onnx.load(str(path))
    broken.graph.node[3].input[1] = "nowhere"  # the Conv's weight: its shape is unknown
    onnx.save(broken, str(tmp_path / "broken.onnx"))
    line = flops_line(inspect_model(tmp_path / "broken.onnx"))
    assert "could not be inferred" in line and "--shape" not in line
