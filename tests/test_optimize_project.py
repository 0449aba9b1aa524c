"""`optimize_project` in-process with ONNX Runtime: what it makes, and what it leaves behind when
a step fails or is cancelled (nothing)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import onnx
import pytest

from perftui.domain.errors import InputError
from perftui.domain.names import int8_name
from perftui.domain.records import Project
from perftui.optimize import project as optimize
from perftui.optimize.project import optimize_project
from perftui.optimize.publish import models_dir
from perftui.store.database import Store
from tests.conftest import ENCODER, MOBILENET

pytestmark = pytest.mark.engine


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """A store with projects 'fp32' (MobileNet, OpenVINO) and 'enc' (encoder, ONNX Runtime);
    temporary files go to tmp_path/tmp so a test can check that none are left."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    s = Store(tmp_path / "db" / "perftui.json")
    s.add_project(Project(name="fp32", model=str(MOBILENET), engine="openvino", device="CPU"))
    s.add_project(Project(name="enc", model=str(ENCODER), engine="onnxruntime", device="CPU"))
    return s


def assert_nothing_left(store: Store) -> None:
    assert [p.name for p in store.projects()] == ["enc", "fp32"]
    folder = models_dir(store)
    assert not folder.exists() or not any(folder.iterdir()), list(folder.iterdir())
    scratch = Path(tempfile.gettempdir())
    assert not [p for p in scratch.iterdir() if p.name != ".ses"]  # .ses: onnxruntime's own


def test_static_int8_of_a_dynamic_model_keeps_its_dynamic_dims(store: Store):
    phases: list[tuple[str, int, int]] = []
    warnings: list[str] = []
    result = optimize_project(
        store,
        "enc",
        samples=2,
        shapes={"input_ids": (1, 16)},
        progress=lambda *step: phases.append(step),
        warn=warnings.append,
    )
    assert result.project.name == "enc-int8" == int8_name("enc", "static")
    assert Path(result.project.model) == models_dir(store) / "enc-int8.onnx"
    assert result.project.engine == "onnxruntime" and result.project.source_project == "enc"
    assert result.calibration == "random" and result.samples == 2
    assert warnings == [result.warning] and "consistency check" in result.warning
    assert phases[:3] == [("preparing", 0, 0), ("calibrating", 1, 2), ("calibrating", 2, 2)]
    assert phases[3:] == [
        ("quantizing", 0, 0),
        ("checking on onnxruntime", 0, 0),
        ("checking accuracy", 1, 2),
        ("checking accuracy", 2, 2),
        ("saving", 0, 0),
    ]
    model = onnx.load(result.project.model)
    dims = [d.dim_param or d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["batch", "seq"]
    assert any(n.op_type == "QuantizeLinear" for n in model.graph.node)
    assert {op.domain for op in model.opset_import} <= {n.domain for n in model.graph.node}
    accuracy = result.accuracy
    assert accuracy.inputs == "held-out" and accuracy.top1_agreement is None
    assert 0.9 < accuracy.cosine_similarity <= 1.0
    stored = store.get_project("enc-int8")
    assert stored is not None and stored.source_project == "enc"
    notes = stored.notes["optimization"]
    assert notes["method"] == "static" and notes["calibration"] == "random"
    assert notes["samples"] == 2 and notes["created_at"]
    assert notes["accuracy"] == accuracy.to_dict()


def test_dynamic_method_needs_no_calibration(store: Store):
    """On OpenVINO: NNCF's int8 weight compression, saved as IR."""
    phases: list[str] = []
    result = optimize_project(
        store, "fp32", method="dynamic", samples=2, progress=lambda p, *_: phases.append(p)
    )
    assert result.project.name == "fp32-int8-dynamic" and result.samples == 2
    assert "calibrating" not in phases and result.accuracy.top1_agreement is not None
    assert result.tool == "nncf" and Path(result.project.model).suffix == ".xml"
    assert Path(result.project.model).with_suffix(".bin").is_file()


def test_a_store_failure_removes_the_model_file(store: Store, monkeypatch: pytest.MonkeyPatch):
    def refuse(self: Store, project: Project) -> Project:
        raise InputError("project 'fp32-int8' already exists; choose another name")

    monkeypatch.setattr(Store, "add_project", refuse)
    with pytest.raises(InputError, match="already exists"):
        optimize_project(store, "fp32", samples=1)
    assert_nothing_left(store)


def test_an_accuracy_failure_leaves_nothing(store: Store, monkeypatch: pytest.MonkeyPatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise InputError("the INT8 model's output 'logits' has NaN or infinity")

    monkeypatch.setattr(optimize, "measure_accuracy", broken)
    with pytest.raises(InputError, match="NaN"):
        optimize_project(store, "fp32", samples=1)
    assert_nothing_left(store)


def test_a_cancel_during_calibration_leaves_nothing(store: Store):
    def cancel(phase: str, done: int, total: int) -> None:
        if phase == "calibrating" and done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        optimize_project(store, "fp32", samples=4, progress=cancel)
    assert_nothing_left(store)


def test_an_existing_file_is_never_overwritten(store: Store):
    folder = models_dir(store)
    folder.mkdir(parents=True)
    (folder / "fp32-int8.bin").write_bytes(b"someone else's file")
    result = optimize_project(store, "fp32", samples=1)
    assert Path(result.project.model).name == "fp32-int8-2.xml"
    assert (folder / "fp32-int8.bin").read_bytes() == b"someone else's file"
    assert sorted(p.name for p in folder.iterdir()) == [
        "fp32-int8-2.bin",
        "fp32-int8-2.xml",
        "fp32-int8.bin",
    ]
