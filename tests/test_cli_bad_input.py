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
