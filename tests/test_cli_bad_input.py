"""Bad input through the real entry point: one clear line, exit status 2, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import QUICK, one_error_line, perftui
from tests.conftest import ENCODER, MOBILENET


def test_missing_file(tmp_path: Path):
    line = one_error_line(perftui("bench", str(tmp_path / "nope.onnx"), *QUICK))
    assert "nope.onnx" in line and "not found" in line


def test_text_file_named_onnx(tmp_path: Path):
    fake = tmp_path / "notes.onnx"
    fake.write_text("this is not a model\n")
    line = one_error_line(perftui("bench", str(fake), *QUICK))
    assert "notes.onnx" in line


def test_truncated_onnx(tmp_path: Path):
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(MOBILENET.read_bytes()[:5000])
    for engine in ("openvino", "onnxruntime"):
        line = one_error_line(perftui("bench", str(cut), "--engine", engine, *QUICK))
        assert "cut.onnx" in line


def test_dynamic_dims_need_a_shape():
    line = one_error_line(perftui("bench", str(ENCODER), *QUICK))
    assert "--shape input_ids[" in line


@pytest.mark.parametrize("batch", ["0", "-1", "abc"])
def test_bad_batch(batch: str):
    line = one_error_line(perftui("bench", str(MOBILENET), f"--batch={batch}", *QUICK))
    assert "batch" in line


def test_unknown_engine():
    line = one_error_line(perftui("bench", str(MOBILENET), "--engine", "tensorrt", *QUICK))
    assert "unknown engine 'tensorrt'" in line


@pytest.mark.parametrize("engine", ["openvino", "onnxruntime"])
def test_device_the_engine_does_not_have(engine: str):
    line = one_error_line(
        perftui("bench", str(MOBILENET), "--engine", engine, "--device", "NPU7", *QUICK)
    )
    assert "NPU7" in line and "available" in line


def test_unknown_option_is_one_line():
    line = one_error_line(perftui("bench", str(MOBILENET), "--batches", "4"))
    assert "--batches" in line


def test_damaged_database_is_reported_and_left_untouched(tmp_path: Path):
    db = tmp_path / "perftui.json"
    db.write_text('{"projects": {"1": {"name": "x"')
    before = db.read_bytes()
    for args in (["projects"], ["bench", str(MOBILENET), *QUICK]):
        line = one_error_line(perftui(*args, db=db))
        assert "damaged" in line
        assert db.read_bytes() == before


def test_show_unknown_project(tmp_path: Path):
    line = one_error_line(perftui("show", "ghost", db=tmp_path / "db.json"))
    assert "ghost" in line


def test_import_of_something_else(tmp_path: Path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    one_error_line(perftui("import", str(other), db=tmp_path / "db.json"))
    csv = tmp_path / "runs.csv"
    csv.write_text("project,model\n")
    assert "JSON export" in one_error_line(perftui("import", str(csv), db=tmp_path / "db.json"))


@pytest.mark.parametrize("seconds", ["nan", "inf", "-1"])
def test_a_time_that_can_never_be_reached_is_refused(seconds: str):
    # nan and inf are floats argparse accepts; the stop condition would never be met
    line = one_error_line(perftui("bench", str(MOBILENET), "--time", seconds, "--no-save"))
    assert "--time" in line


def test_ctrl_c_before_the_benchmark_starts_is_one_line_and_130(monkeypatch, capsys):
    from perftui.cli import entry

    def interrupted(args):
        raise KeyboardInterrupt  # as a Ctrl-C during the imports or the model checks

    monkeypatch.setitem(entry.COMMANDS, "projects", interrupted)
    assert entry.main(["projects"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "perftui: cancelled" and "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "message"), [("--streams=1,2", "no streams"), ("--precision=bf16", "precision")]
)
def test_settings_the_engine_cannot_honour_are_refused_before_any_run(option: str, message: str):
    result = perftui("bench", str(MOBILENET), "--engine", "onnxruntime", option, *QUICK)
    assert message in one_error_line(result)


@pytest.mark.parametrize(
    ("option", "flag"),
    [(["--batch", "99999999999999999999"], "--batch"), (["--seed", "-1"], "--seed")],
)
def test_out_of_range_settings_are_refused_before_anything_is_stored(
    tmp_path: Path, option: list[str], flag: str
):
    db = tmp_path / "db.json"
    assert flag in one_error_line(perftui("bench", str(MOBILENET), *option, *QUICK, db=db))
    assert not db.exists()


def test_a_project_name_that_is_not_text_is_refused(tmp_path: Path):
    db = tmp_path / "db.json"
    line = one_error_line(perftui("bench", str(MOBILENET), "--project", "a\udcff", *QUICK, db=db))
    assert "lone surrogate" in line and not db.exists()


def test_a_read_only_database_is_refused_not_replaced(tmp_path: Path):
    db = tmp_path / "db.json"
    assert perftui("import", str(_tiny_export(tmp_path)), db=db).returncode == 0
    db.chmod(0o444)
    before = db.read_bytes()
    line = one_error_line(perftui("bench", str(MOBILENET), *QUICK, db=db))
    assert "read-only" in line
    assert db.read_bytes() == before and db.stat().st_mode & 0o777 == 0o444


def test_a_new_database_follows_the_umask(tmp_path: Path):
    import os

    old = os.umask(0o077)
    try:
        db = tmp_path / "db.json"
        assert perftui("import", str(_tiny_export(tmp_path)), db=db).returncode == 0
    finally:
        os.umask(old)
    assert db.stat().st_mode & 0o777 == 0o600


def _tiny_export(folder: Path) -> Path:
    path = folder / "tiny.json"
    project = {"name": "t", "model": "/m.onnx", "engine": "openvino", "runs": []}
    path.write_text(json.dumps({"perftui_export": 1, "projects": [project]}))
    return path


def _save_model(path: Path, nodes: list, inputs: list, initializers: list = (), domains=()) -> Path:
    from onnx import TensorProto, helper, save

    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "g", inputs, [out], initializer=list(initializers))
    opsets = [helper.make_opsetid("", 17), *(helper.make_opsetid(d, 1) for d in domains)]
    path.parent.mkdir(parents=True, exist_ok=True)
    save(helper.make_model(graph, opset_imports=opsets), str(path))
    return path


def _float_input(shape: list[int]):
    from onnx import TensorProto, helper

    return helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)


def _refused_before_the_store(tmp_path: Path, model: Path, *options: str) -> str:
    db = tmp_path / "db.json"
    line = one_error_line(perftui("bench", str(model), *options, *QUICK, db=db))
    assert not db.exists()
    return line


@pytest.mark.parametrize("engine", ["onnxruntime", "openvino"])
def test_inputs_larger_than_the_memory_are_refused_saying_how_much(tmp_path: Path, engine: str):
    from onnx import helper

    model = _save_model(
        tmp_path / "huge.onnx",
        [helper.make_node("Relu", ["x"], ["y"])],
        [_float_input([1, 3, 1000000, 100000])],  # more than any machine has
    )
    line = _refused_before_the_store(tmp_path, model, "--engine", engine)
    assert "1,117.6 GiB" in line and "available" in line and "1x3x1000000x100000" in line


def test_external_data_outside_the_model_folder_is_refused_by_onnxruntime(tmp_path: Path):
    import numpy as np
    from onnx import TensorProto, helper

    (tmp_path / "outside.bin").write_bytes(np.ones(4, np.float32).tobytes())
    weight = helper.make_tensor("w", TensorProto.FLOAT, [4], [0.0] * 4)
    weight.ClearField("float_data")
    weight.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "../outside.bin"), ("offset", "0"), ("length", "16")):
        weight.external_data.add(key=key, value=value)
    model = _save_model(
        tmp_path / "models" / "m.onnx",
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [_float_input([4])],
        [weight],
    )
    line = _refused_before_the_store(tmp_path, model, "--engine", "onnxruntime")
    assert "outside the model's folder" in line and "../outside.bin" in line


@pytest.mark.parametrize("engine", ["onnxruntime", "openvino"])
def test_an_unknown_operator_domain_is_refused_naming_it(tmp_path: Path, engine: str):
    from onnx import helper

    model = _save_model(
        tmp_path / "custom.onnx",
        [helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")],
        [_float_input([1, 4])],
        domains=["com.example"],
    )
    line = _refused_before_the_store(tmp_path, model, "--engine", engine)
    assert "'com.example'" in line and "Frobnicate" in line
