"""Optimize on real-world model shapes: old-opset model-zoo graphs on both engines, and the
check that an INT8 model runs on the project's engine before it is saved."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnx
import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import Project
from perftui.optimize import project as optimize
from perftui.optimize.accuracy import measure_accuracy
from perftui.optimize.on_engine import check_runs, open_model
from perftui.optimize.onnx_prepare import QUANT_OPSET, default_opset, prepare_for_quantization
from perftui.optimize.project import optimize_project
from perftui.optimize.publish import models_dir
from perftui.optimize.quantize import Quantized
from perftui.store.database import Store
from tests.optimize_models import old_opset_cnn

pytestmark = pytest.mark.engine

SHAPES = {"data": (1, 3, 8, 8)}


@pytest.fixture
def old_cnn(tmp_path: Path) -> Path:
    return old_opset_cnn(tmp_path / "old_cnn.onnx")


@pytest.fixture
def store(tmp_path: Path, old_cnn: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """Projects 'ort' and 'ov': the old-opset CNN on each engine; temporary files go to
    tmp_path/tmp so that a test can check none are left."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    s = Store(tmp_path / "db" / "perftui.json")
    for name, engine in (("ort", "onnxruntime"), ("ov", "openvino")):
        s.add_project(Project(name=name, model=str(old_cnn), engine=engine, device="CPU"))
    return s


def test_an_old_opset_model_is_fitted_to_the_quantization_tools(old_cnn: Path, tmp_path: Path):
    changes = prepare_for_quantization(old_cnn, tmp_path / "fitted.onnx")
    fitted = onnx.load(str(tmp_path / "fitted.onnx"))
    assert [value.name for value in fitted.graph.input] == ["data"]
    assert default_opset(fitted) == QUANT_OPSET and fitted.ir_version >= 4
    onnx.checker.check_model(fitted)
    assert changes == (
        "9 graph inputs backed by initializers (weights, shapes) were kept as constants,"
        " not inputs",
        f"converted from opset 9 to {QUANT_OPSET} before quantizing",
    )


@pytest.mark.parametrize("method", ["static", "dynamic"])
def test_onnxruntime_quantizes_an_old_opset_model_zoo_graph(store: Store, method: str):
    """Static quantization stopped with "Required inputs (['conv_b__SHAPE']) are missing"."""
    result = optimize_project(store, "ort", method=method, samples=2)
    assert result.tool == "onnxruntime" and Path(result.project.model).suffix == ".onnx"
    assert len(result.changes) == 3 and "opset 9" in result.changes[2]
    assert result.changes[0] == "calibrated and checked at data[1,3,8,8]"
    assert result.project.notes["optimization"]["changes"] == list(result.changes)
    assert result.accuracy.top1_agreement is not None
    assert result.accuracy.cosine_similarity > 0.9


def test_openvino_quantizes_an_old_opset_model_zoo_graph_with_nncf(store: Store):
    """Its convolution's weights are made at load time by ConstantOfShape: unfolded, NNCF
    left them (and an old ResNet-50's 53 convolutions) in float."""
    import openvino as ov

    result = optimize_project(store, "ov", samples=2)
    assert result.tool == "nncf" and Path(result.project.model).suffix == ".xml"
    assert result.accuracy.cosine_similarity > 0.9
    assert "1 of 1 weights made at load time by ConstantOfShape folded" in result.changes[1]
    model = ov.Core().read_model(result.project.model)
    [conv] = [op for op in model.get_ordered_ops() if op.get_type_name() == "Convolution"]
    weight = conv.input(1).get_source_output().get_node().get_type_name()
    assert weight in ("Multiply", "FakeQuantize")  # int8 weights dequantized; unfolded: Broadcast


def test_an_int8_model_that_does_not_run_on_the_engine_is_not_saved(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def unrunnable(source: object, workdir: Path, *args: object, **kwargs: object) -> Quantized:
        model = onnx.load(str(store.get_project("ort").model))
        model.graph.node[-1].domain = "example.custom"  # Softmax of an unknown domain
        model.opset_import.append(onnx.helper.make_opsetid("example.custom", 1))
        onnx.save(model, str(workdir / "int8.onnx"))
        return Quantized(workdir / "int8.onnx", "onnxruntime")

    monkeypatch.setattr(optimize, "quantize_model", unrunnable)
    with pytest.raises(InputError, match=r"does not run on onnxruntime/CPU: .*nothing was saved"):
        optimize_project(store, "ort", samples=1)
    assert [p.name for p in store.projects()] == ["ort", "ov"]
    folder = models_dir(store)
    assert not folder.exists() or not any(folder.iterdir())
    assert not [p for p in Path(tempfile.gettempdir()).iterdir() if p.name != ".ses"]


@pytest.mark.parametrize("engine", ["onnxruntime", "openvino"])
def test_check_runs_compiles_and_runs_one_request(old_cnn: Path, tmp_path: Path, engine: str):
    feeds = {"data": np.zeros(SHAPES["data"], np.float32)}
    check_runs(old_cnn, engine, "CPU", SHAPES, feeds)  # the FP32 source runs on both
    broken = onnx.load(str(old_cnn))
    broken.graph.node[-1].op_type = "Frobnicate"
    onnx.save(broken, str(tmp_path / "broken.onnx"))
    with pytest.raises(InputError, match=f"the INT8 model does not run on {engine}/CPU: "):
        check_runs(tmp_path / "broken.onnx", engine, "CPU", SHAPES, feeds)


@pytest.mark.parametrize(("engine", "expected"), [("onnxruntime", "model"), ("openvino", "f32")])
def test_the_accuracy_reference_runs_in_f32_whatever_the_cpu_defaults_to(
    old_cnn: Path, engine: str, expected: str
):
    """OpenVINO runs a float model in bf16 by default on a BF16 CPU: the INT8 model's
    accuracy is judged against true FP32, not against bf16."""
    reference = open_model(old_cnn, engine, "CPU", SHAPES, "FP32", exact=True)
    assert reference.precision == expected
    feeds = {"data": np.ones(SHAPES["data"], np.float32)}
    report = measure_accuracy(old_cnn, old_cnn, [feeds], "held-out", engine=engine, shapes=SHAPES)
    assert report.reference_precision == expected
    assert report.to_dict()["reference_precision"] == expected
    assert f"against the FP32 model run in {expected}" in report.summary()
