"""`perftui optimize` end to end through the real entry point (`python -m perftui`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from perftui.domain.records import Project
from perftui.store.database import Store
from tests.cli_helpers import QUICK, perftui
from tests.conftest import ENCODER, MOBILENET, MOBILENET_INT8, MOBILENET_IR
from tests.process_helpers import read_until

pytestmark = pytest.mark.engine


def test_optimize_is_a_command_of_the_cli():
    # asserted, not a condition to skip on: unregistering the command fails here
    result = perftui("optimize", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: perftui optimize"), result.stdout


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """TMPDIR of the child processes, to check that no temporary file is left behind."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


def models(db: Path) -> list[str]:
    folder = db.parent / "models"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def optimize_json(*args: str) -> dict:
    result = perftui("optimize", *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def error_line(result: subprocess.CompletedProcess) -> str:
    """Exit 2 and one error line, the last on stderr (progress lines may come before it)."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("perftui: error:")]
    assert errors == [lines[-1]], lines
    return lines[-1]


def add_project(db: Path, name: str, model: Path, engine: str = "onnxruntime") -> None:
    Store(db).add_project(Project(name=name, model=str(model), engine=engine, device="CPU"))


def test_openvino_ir_then_int8_then_bench_then_compare_shows_int8_layers(
    isolated_db: Path, scratch: Path
):
    """The shipped OpenVINO sample's headline path: FP32 IR -> INT8 (NNCF, IR) -> compare."""
    fp32 = perftui("bench", str(MOBILENET_IR), "--project", "fp32", "--profile", *QUICK)
    assert fp32.returncode == 0, fp32.stderr

    result = perftui("optimize", "fp32", "--samples", "4", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc.keys() == {
        "project",
        "source",
        "model",
        "method",
        "calibration",
        "samples",
        "warning",
        "tool",
        "changes",
        "shapes",
        "accuracy",
    }
    assert (doc["project"], doc["source"], doc["method"]) == ("fp32-int8", "fp32", "static")
    assert (doc["calibration"], doc["samples"], doc["tool"]) == ("random", 4, "nncf")
    assert doc["model"] == str(isolated_db.parent / "models" / "fp32-int8.xml")
    assert models(isolated_db) == ["fp32-int8.bin", "fp32-int8.xml"]
    assert "consistency check" in doc["warning"]
    accuracy = doc["accuracy"]
    assert accuracy["inputs"] == "held-out" and accuracy["samples"] == 4
    assert 0 < accuracy["mean_abs_diff"] <= accuracy["max_abs_diff"]
    assert 0.9 < accuracy["cosine_similarity"] <= 1.0
    assert 0.0 <= accuracy["top1_agreement"] <= 1.0
    assert [o["name"] for o in accuracy["outputs"]] == ["logits"]
    # Progress for the dashboard: one line per step on stderr.
    lines = result.stderr.splitlines()
    assert lines[0].startswith("perftui: warning: no --calibration folder")
    assert lines[1:] == [
        "preparing",
        *[f"calibrating {i}/4" for i in range(1, 5)],
        "quantizing",
        "checking on openvino",
        *[f"checking accuracy {i}/4" for i in range(1, 5)],
        "saving",
    ]
    stored = Store(isolated_db).get_project("fp32-int8")
    assert stored is not None and stored.engine == "openvino" and stored.device == "CPU"
    assert stored.source_project == "fp32" and stored.model == doc["model"]
    assert stored.notes["optimization"]["accuracy"] == accuracy

    int8 = perftui("bench", doc["model"], "--project", "fp32-int8", "--profile", *QUICK)
    assert int8.returncode == 0, int8.stderr
    compared = perftui("compare", "fp32", "fp32-int8", "--json")
    assert compared.returncode == 0, compared.stderr
    comparison = json.loads(compared.stdout)
    i8_layers = [
        layer["name"]
        for layer in comparison["layers"]
        if layer["b"] and layer["b"]["precision"] == "I8" and layer["b"]["type"] == "Convolution"
    ]
    assert len(i8_layers) >= 10, comparison["layers"]
    conv = next(t for t in comparison["layer_types"] if t["type"] == "Convolution")
    assert "I8" in conv["b"]["precisions"] and "I8" not in (conv["a"]["precisions"] or {})
    assert sorted(p.name for p in scratch.iterdir() if p.name != ".ses") == []


def test_calibration_folder_and_text_report(isolated_db: Path, tmp_path: Path):
    add_project(isolated_db, "m", MOBILENET)
    folder = tmp_path / "calib"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for i in range(3):
        np.save(folder / f"img{i}.npy", rng.standard_normal((3, 224, 224)).astype(np.float32))
    result = perftui("optimize", "m", "--calibration", str(folder), "--name", "m8")
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr and "calibrating 3/3" in result.stderr
    text = result.stdout
    assert text.startswith("m8: static INT8 of m by onnxruntime, runs on onnxruntime/CPU")
    assert f"calibration: 3 samples from {folder}" in text
    assert "accuracy on the 3 calibration samples: max |diff|" in text
    assert "perftui compare m m8" in text
    notes = Store(isolated_db).get_project("m8").notes["optimization"]
    assert notes["calibration"] == "folder" and notes["calibration_dir"] == str(folder)
    assert notes["accuracy"]["inputs"] == "calibration" and notes["samples"] == 3


@pytest.mark.parametrize(("engine", "tool"), [("onnxruntime", "onnxruntime"), ("openvino", "nncf")])
def test_dynamic_method(isolated_db: Path, engine: str, tool: str):
    add_project(isolated_db, "m", MOBILENET, engine)
    doc = optimize_json("m", "--method", "dynamic", "--samples", "2")
    assert doc["project"] == "m-int8-dynamic" and doc["method"] == "dynamic"
    assert doc["accuracy"]["samples"] == 2 and doc["warning"] and doc["tool"] == tool


def test_the_shapes_of_the_last_benchmark_are_reused(isolated_db: Path, tmp_path: Path):
    """The encoder sample on OpenVINO: its INT8 (NNCF) compiles and runs there (the ONNX
    Runtime INT8 failed every OpenVINO run with "index '0' out of range"), optimize needs no
    --shape again, and the next command gives the INT8 IR, which keeps no dimension names,
    the shape the project was benchmarked with (the first of the dimension's values, said)."""
    bench = perftui("bench", str(ENCODER), "--engine", "openvino", "--shape", "seq=16,8", *QUICK)
    assert bench.returncode == 0, bench.stderr
    project = "encoder_fp32-openvino-CPU"
    result = perftui("optimize", project, "--samples", "2")
    assert result.returncode == 0, result.stderr
    assert "checking on openvino" in result.stderr
    assert (
        "note: calibrated and checked at input_ids[1,16] (seq=16: the first of seq=16,8 in the"
        " project's last benchmark; --shape DIM=N calibrates at another)"
    ) in result.stdout
    assert "note: NNCF's transformer scheme (SmoothQuant), for a MatMul of two" in result.stdout
    assert f"--shape 'input_ids[1,16]' --profile && perftui compare {project}" in result.stdout
    int8 = Store(isolated_db).get_project(f"{project}-int8")
    assert int8 is not None and int8.model.endswith(".xml")
    assert int8.notes["optimization"]["shapes"] == {"input_ids": [1, 16]}
    again = perftui(
        "bench", int8.model, "--project", int8.name, "--shape", "input_ids[1,16]", *QUICK
    )
    assert again.returncode == 0, again.stderr
    assert "failed" not in again.stdout, again.stdout


def _custom_op_model(path: Path) -> Path:
    """A model ONNX Runtime cannot load (an operator of an unknown domain)."""
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["h"]),
            helper.make_node("Frobnicate", ["h"], ["y"], domain="example.custom"),
        ],
        "custom",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
        [numpy_helper.from_array(np.eye(8, dtype=np.float32), "w")],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("example.custom", 1)],
    )
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _calibration(tmp_path: Path, kind: str) -> str:
    folder = tmp_path / kind
    if kind == "missing":
        return str(folder)
    folder.mkdir()
    if kind == "wrong-shape":
        np.save(folder / "a.npy", np.zeros((1, 3, 32, 32), np.float32))
    elif kind == "text":
        (folder / "labels.txt").write_text("cat\ndog\n")
    elif kind == "strings":
        np.save(folder / "a.npy", np.array(["cat", "dog"]))
    return str(folder)


BAD = {  # case: (project, calibration folder kind, other arguments, part of the message)
    "wrong shapes": ("m", "wrong-shape", [], "has shape [1,3,32,32]"),
    "empty folder": ("m", "empty", [], "is empty"),
    "non-.npy file": ("m", "text", [], "'labels.txt', which is not a .npy"),
    "non-numeric data": ("m", "strings", [], "data, not numbers"),
    "missing folder": ("m", "missing", [], "calibration folder not found"),
    "unknown project": ("nope", None, [], "no project named 'nope'"),
    "existing name": ("m", None, ["--name", "ir"], "project 'ir' already exists"),
    "no samples": (
        "m",
        None,
        ["--samples", "0"],
        "--samples: 0 is not a number of samples from 1 to",
    ),
    "IR on onnxruntime": ("ir", None, [], "cannot read the openvino-ir model mobilenet_fp32.xml"),
    "already INT8": ("int8", None, [], "already quantized"),
    "fails to quantize": ("custom", None, [], "could not quantize custom.onnx"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_and_leaves_nothing(
    case: str, isolated_db: Path, tmp_path: Path, scratch: Path
):
    add_project(isolated_db, "m", MOBILENET)
    add_project(isolated_db, "ir", MOBILENET_IR)
    add_project(isolated_db, "int8", MOBILENET_INT8)
    add_project(isolated_db, "custom", _custom_op_model(tmp_path / "custom.onnx"))
    before = Store(isolated_db).projects()
    project, calibration, extra, message = BAD[case]
    args = ["--samples", "2", *extra]
    if calibration is not None:
        args += ["--calibration", _calibration(tmp_path, calibration)]
    line = error_line(perftui("optimize", project, *args))
    assert message in line, line
    assert Store(isolated_db).projects() == before
    assert models(isolated_db) == []
    assert [p.name for p in scratch.iterdir() if p.name != ".ses"] == []


def test_sigterm_stops_it_and_leaves_nothing(isolated_db: Path, scratch: Path):
    add_project(isolated_db, "m", MOBILENET)
    child = subprocess.Popen(
        [sys.executable, "-m", "perftui", "optimize", "m", "--samples", "400"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    read_until(child.stderr, "calibrating 2/")  # under way: the calibration has begun
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "cancelled; nothing was saved" in err
    assert [p.name for p in Store(isolated_db).projects()] == ["m"]
    assert models(isolated_db) == []
    assert [p.name for p in scratch.iterdir() if p.name != ".ses"] == []


def test_help_documents_the_calibration_layout():
    result = perftui("optimize", "--help")
    assert result.returncode == 0
    assert "--calibration DIR" in result.stdout and "NAME.npz" in result.stdout
