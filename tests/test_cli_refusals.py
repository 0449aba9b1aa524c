"""Issue 26 items 4-8 through the real entry point: input at fault is refused in one line with
exit status 2 and nothing stored (never an internal error, never a failed run kept), and text
from the store is printed as text, never as terminal commands."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.cli_helpers import QUICK, one_error_line, perftui
from tests.conftest import MOBILENET


def _tiny(path: Path, weight: onnx.TensorProto, constant: bool = False) -> Path:
    """y = x + w, with w an initializer or (`constant`) a Constant node's value."""
    nodes = [helper.make_node("Add", ["x", "w"], ["y"])]
    initializers = [weight]
    if constant:
        nodes.insert(0, helper.make_node("Constant", [], ["w"], value=weight))
        initializers = []
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


def _external(name: str, location: str) -> onnx.TensorProto:
    tensor = numpy_helper.from_array(np.ones((1, 4), np.float32), name)
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "location", location
    return tensor


def _bad_models(folder: Path) -> dict[str, Path]:
    huge = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[10**6, 10**6])
    huge.raw_data = bytes(16)
    (folder.parent / "secret.bin").write_bytes(b"\0" * 16)
    return {
        "huge initializer": _tiny(folder / "huge.onnx", huge),
        "missing external data": _tiny(folder / "missing.onnx", _external("w", "nope.bin")),
        "constant escaping": _tiny(
            folder / "escape.onnx", _external("w", "../secret.bin"), constant=True
        ),
        "huge constant": _tiny(folder / "hugec.onnx", huge, constant=True),
    }


@pytest.mark.parametrize("engine", ["onnxruntime", "openvino"])
def test_a_model_the_engine_cannot_read_is_bad_input(engine: str, tmp_path: Path):
    folder = tmp_path / "models"
    folder.mkdir()
    db = tmp_path / "db.json"
    for what, model in _bad_models(folder).items():
        line = one_error_line(perftui("bench", str(model), "--engine", engine, *QUICK, db=db))
        assert model.name in line, what
        assert not db.exists(), what


def test_a_valid_model_with_a_constant_and_external_data_still_runs(tmp_path: Path):
    (tmp_path / "w.bin").write_bytes(np.ones((1, 4), np.float32).tobytes())
    model = _tiny(tmp_path / "ok.onnx", _external("w", "w.bin"), constant=True)
    result = perftui("bench", str(model), "--engine", "onnxruntime", *QUICK, "--no-save")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("where", ["missing/dir/r.md", "."])
def test_report_to_a_path_it_cannot_write_is_bad_input(where: str, tmp_path: Path):
    db = tmp_path / "db.json"
    result = perftui("report", "A", "-o", str(tmp_path / where), db=db)
    assert "cannot write" in one_error_line(result)


@pytest.mark.parametrize(
    "targets",
    [
        {"targets": [{"name": 1, "destination": [], "python": 5}]},
        {"targets": [{"name": "t1", "destination": "host; rm -rf ~"}]},
        {"targets": [{"name": "t1"}]},
        {"targets": "t1"},
        [1, 2],
    ],
)
def test_a_targets_file_with_wrong_types_is_bad_input(targets: object, tmp_path: Path):
    db = tmp_path / "db.json"
    (tmp_path / "db.targets.json").write_text(json.dumps(targets))
    for args in (["targets", "list"], ["bench", str(MOBILENET), "--target", "t1", *QUICK]):
        line = one_error_line(perftui(*args, db=db))
        assert "targets file" in line
    assert not db.exists()


@pytest.mark.parametrize(
    "destination", ["host;id", "$(id)", "a\nb", "user@-oProxyCommand=x", "user@host\n", "a b", ""]
)
def test_targets_add_refuses_what_is_not_a_destination(destination: str, tmp_path: Path):
    db = tmp_path / "db.json"
    line = one_error_line(perftui("targets", "add", "t1", destination, db=db))
    assert "not an SSH destination" in line
    assert not (tmp_path / "db.targets.json").exists()


def _unreachable_target(db: Path) -> None:
    """A target whose host cannot be reached: `targets add` refuses one (nothing stored), so
    it is written as a host that went down after it was added."""
    from perftui.targets.registry import Target, TargetBook

    line = one_error_line(perftui("targets", "add", "t1", "perftui-nowhere.invalid", db=db))
    assert "is unreachable" in line and not (db.parent / "db.targets.json").exists()
    TargetBook(db).add(Target("t1", "perftui-nowhere.invalid"))


def test_a_model_whose_name_has_a_newline_is_refused_for_a_target(tmp_path: Path):
    db = tmp_path / "db.json"
    _unreachable_target(db)
    model = tmp_path / "a\nb.onnx"
    model.write_bytes(MOBILENET.read_bytes())
    args = ["bench", str(model), "--target", "t1", "--project", "p", *QUICK]
    line = one_error_line(perftui(*args, db=db))
    assert "newline" in line and not db.exists()


def test_an_unreachable_target_stores_no_project(tmp_path: Path):
    db = tmp_path / "db.json"
    _unreachable_target(db)
    one_error_line(perftui("bench", str(MOBILENET), "--target", "t1", *QUICK, db=db))
    listed = perftui("projects", "--json", db=db)
    assert listed.returncode == 0 and json.loads(listed.stdout or "[]") in ([], {"projects": []})


NAMES = ["x\x1b[31mRED", "a\nb", "a\rb", "bell\x07", "rtl\u202eevil", "n" * 10_000, "   "]


@pytest.mark.parametrize(
    "name", NAMES, ids=["escape", "newline", "cr", "bell", "rtl", "long", "blank"]
)
def test_one_name_rule_for_bench_and_optimize(name: str, tmp_path: Path):
    db = tmp_path / "db.json"
    for args in (
        ["bench", str(MOBILENET), "--project", name, *QUICK],
        ["optimize", "p", "--name", name],
    ):
        line = one_error_line(perftui(*args, db=db))
        assert "\x1b" not in line and "\u202e" not in line and "\x07" not in line
        assert "project" in line
    assert not db.exists()


def test_the_same_rule_in_the_dashboards_forms():
    from perftui.domain.names import name_problem
    from perftui.optimize.form import check_field

    for name in NAMES:
        assert name_problem(name) and check_field("name", name)
    assert name_problem("resnet50-ov-CPU (fp32) é") is None


def test_stored_text_is_printed_safe_for_a_terminal(tmp_path: Path):
    from perftui.domain.names import terminal_safe
    from perftui.domain.records import Project
    from perftui.store import Store

    db = tmp_path / "db.json"
    Store(db).add_project(Project("oldname", str(MOBILENET), "openvino", "CPU"))
    data = json.loads(db.read_text())  # a name the store refuses, written by another hand
    (project,) = data["projects"].values()
    project["name"] = "old\x1b[2Jname"
    db.write_text(json.dumps(data))
    listed = perftui("projects", db=db)
    assert listed.returncode == 0 and "\x1b" not in listed.stdout
    assert "old\\x1b[2Jname" in listed.stdout
    assert terminal_safe("a\u202eb\nc", lines=True) == "a\\u202eb\nc"


@pytest.mark.parametrize("batch", ["1,,2", "1,2,", ",1"])
def test_a_list_with_an_empty_item_is_refused(batch: str, tmp_path: Path):
    db = tmp_path / "db.json"
    line = one_error_line(perftui("bench", str(MOBILENET), f"--batch={batch}", *QUICK, db=db))
    assert "--batch" in line and "empty item" in line and not db.exists()


def test_optimize_refuses_a_model_whose_constant_reads_outside_its_folder(tmp_path: Path):
    from perftui.domain.records import Project
    from perftui.store import Store

    folder = tmp_path / "models"
    folder.mkdir()
    model = _bad_models(folder)["constant escaping"]
    db = tmp_path / "db.json"
    Store(db).add_project(Project("m", str(model), "onnxruntime", "CPU"))
    line = one_error_line(perftui("optimize", "m", "--samples", "2", db=db))
    assert "outside the model's folder" in line
    assert [p.name for p in Store(db).projects()] == ["m"]


def test_an_unknown_project_of_many_names_the_closest_few(tmp_path: Path) -> None:
    from perftui.store.database import Store
    from tests.store_helpers import make_project

    db = tmp_path / "db.json"
    store = Store(db)
    for n in range(20):
        store.add_project(make_project(f"resnet-{n:02d}"))
    line = one_error_line(perftui("show", "resnet-7", db=db))
    assert "no project named 'resnet-7'" in line
    assert "resnet-07" in line and "(20 in all: `perftui projects` lists them)" in line
    assert line.count("resnet-") <= 9  # the name given and eight of the twenty
