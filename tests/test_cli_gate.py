"""`perftui gate` end to end through the real CLI on the shipped encoder: exit statuses, the
JUnit file read by an XML parser, the Markdown summary, the stored runs and bad input."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli_helpers import bench_json, long_and_short, one_error_line, perftui
from tests.conftest import ENCODER, SAMPLES
from tests.process_helpers import read_until

pytestmark = pytest.mark.engine

SHORT = ["--rounds", "5", "--time", "0.2"]


def shallow_and_deep(db: Path) -> None:
    """Projects `shallow` (the shipped 2-layer encoder) and `deep` (the same architecture,
    8 layers), measured alike (ONNX Runtime, one thread, seq=32): at one configuration,
    `deep` is far slower (a gate measures one configuration on both sides)."""
    import importlib.util

    import numpy as np
    import onnx

    spec = importlib.util.spec_from_file_location("architectures", SAMPLES / "architectures.py")
    assert spec is not None and spec.loader is not None
    architectures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(architectures)
    architectures.LAYERS = 8
    deep = db.parent / "encoder_deep.onnx"
    onnx.save(architectures.build_encoder(np.random.default_rng(7)), str(deep))
    for name, model in (("shallow", ENCODER), ("deep", deep)):
        bench_json(
            str(model), "--engine", "onnxruntime", "--threads", "1", "--shape", "seq=32",
            "--project", name, db=db,
        )  # fmt: skip


def stored(db: Path) -> tuple[int, int]:
    """(projects, runs) in the store."""
    from perftui.store.database import Store

    store = Store(db)
    projects = store.projects()
    return len(projects), sum(len(store.runs(p.name)) for p in projects)


def test_a_slower_candidate_fails_and_a_faster_one_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    db = tmp_path / "db.json"
    shallow_and_deep(db)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    junit, markdown = tmp_path / "gate.xml", tmp_path / "gate.md"
    failed = perftui(
        "gate", "shallow", "deep", *SHORT, "--stat", "median,throughput",
        "--junit", str(junit), "--markdown", str(markdown), db=db,
    )  # fmt: skip
    assert failed.returncode == 1, failed.stderr
    assert failed.stdout.startswith("FAIL")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "2"
    assert {c.get("name") for c in suite.iter("testcase")} == {"median", "throughput"}
    text = markdown.read_text()
    assert text.splitlines()[0] == "## perftui gate: FAIL"
    assert "| median |" in text and "| ONNX RT |" in text and "perftui gate shallow deep" in text
    assert re.search(r"^Settings: b1 t1 .*seq=32, both sides$", text, re.MULTILINE), text
    assert summary.read_text().strip() == text.strip()
    # the gate's rounds are stored in each project, labelled as the gate's
    shown = json.loads(perftui("show", "deep", "--json", db=db).stdout)
    labels = [r["resolved"].get("label", "") for r in shown["runs"]]
    assert sum(label.startswith("gate ") for label in labels) == 5
    compared = perftui("compare", "shallow", "deep", db=db).stdout  # the gate's rounds, judged
    assert "FAIL, deep against shallow at 5 % slower, 5 rounds" in compared

    passed = perftui("gate", "deep", "shallow", *SHORT, "--json", "--no-save", db=db)
    assert passed.returncode == 0, passed.stderr
    found = json.loads(passed.stdout)
    assert found["verdict"] == "pass" and found["rounds"] == 5 and not found["stored"]
    assert re.fullmatch(r"b1 t1 .*seq=32, both sides", found["settings"])
    assert found["statistics"][0]["interval"][1] < 1.05
    assert stored(db) == (2, 12)  # --no-save kept nothing of the second gate


def test_two_model_files_gate_with_bench_flags(tmp_path: Path):
    db = tmp_path / "db.json"
    junit = tmp_path / "gate.xml"
    done = perftui(
        "gate", str(ENCODER), str(ENCODER), "--engine", "onnxruntime", "--shape", "seq=16",
        "--rounds", "3", "--time", "0.1", "--max-slowdown", "100", "--junit", str(junit),
        db=db,
    )  # fmt: skip
    assert done.returncode in (0, 3), done.stderr  # A/A: never slower by 100 %
    from perftui.store.database import Store

    names = {p.name for p in Store(db).projects()}
    assert names == {f"encoder_fp32-onnxruntime-CPU-{role}" for role in ("baseline", "candidate")}
    assert ET.parse(junit).getroot().find("testsuite/testcase") is not None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["long", "long"], "same project"),
        (["long", "short"], "share no measured configuration (their fastest runs differ in dims"),
        (["long", "short", "--max-slowdown", "-5"], "--max-slowdown"),
        (["long", "short", "--max-slowdown", "200%"], "out of range"),
        (["long", "nowhere/model.onnx"], "does not exist"),
        (["long", "empty"], "no successful run"),
        (["long", "short", "--threads", "2"], "brings its own settings"),
        (["long", "short", "--budget", "0"], "--budget: '0' is not a number of seconds above 0"),
        (["long", "short", "--time", "1e9"], "--time: '1e9' is not a number of seconds above 0"),
    ],
)
def test_bad_input_is_one_line_and_stores_nothing(tmp_path: Path, args: list[str], words: str):
    from perftui.domain.records import Project
    from perftui.store.database import Store

    db = tmp_path / "db.json"
    long_and_short(db)
    Store(db).add_project(Project("empty", str(ENCODER), "onnxruntime"))
    before = stored(db)
    line = one_error_line(perftui("gate", *args, db=db))
    assert words in line, line
    assert stored(db) == before


def test_ctrl_c_stops_the_gate_with_130_and_keeps_the_rounds(tmp_path: Path):
    import os
    import signal
    import subprocess
    import sys

    db = tmp_path / "db.json"
    shallow_and_deep(db)
    junit = tmp_path / "gate.xml"
    env = {**os.environ, "PERFTUI_DB": str(db)}
    command = [sys.executable, "-m", "perftui", "gate", "shallow", "deep", "--rounds", "20",
               "--time", "0.5", "--junit", str(junit)]  # fmt: skip
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)  # fmt: skip
    assert process.stderr is not None
    read_until(process.stderr, "run 2/")  # one round measured, the gate goes on
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert out.startswith("INTERRUPTED") and "to settle it" not in out
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("skipped") == "1"


def test_a_model_file_takes_the_other_sides_settings(tmp_path: Path):
    db = tmp_path / "db.json"
    long_and_short(db)
    done = perftui(
        "gate", "long", str(ENCODER), "--rounds", "3", "--time", "0.1", "--max-slowdown", "100",
        db=db,
    )  # fmt: skip
    assert done.returncode in (0, 3), done.stderr
    shown = json.loads(perftui("show", "encoder_fp32-onnxruntime-CPU", "--json", db=db).stdout)
    configs = {(r["config"]["threads"], r["config"]["dims"]["seq"]) for r in shown["runs"]}
    assert configs == {(1, 128)} and len(shown["runs"]) == 3
