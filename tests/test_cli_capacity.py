"""`perftui capacity` through the real entry point: refusals in one line with nothing stored,
and a search on the sample MobileNet stored as a benchmark's runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import one_error_line, perftui
from tests.conftest import MOBILENET_IR


@pytest.fixture
def model(tmp_path: Path) -> Path:
    """A model file's path for refusals made before any engine reads it."""
    path = tmp_path / "m.onnx"
    path.write_bytes(b"not read")
    return path


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--slo", "p99=50"], "objective bound '50' has no known unit"),
        (["--slo", "p42=5ms"], "objective statistic 'p42' is not known"),
        (["--slo", "p99=-5ms"], "is not a time above 0"),
        (["--slo", "p99=5ms,p99=6ms"], "objective 'p99' is given twice"),
        (["--slo", "p99=5ms", "--budget", "0"], "--budget"),
        (["--slo", "p99=5ms", "--budget", "nan"], "--budget"),
        (["--slo", "p99=5ms", "--rate", "100"], "--rate: capacity searches the rate itself"),
        (
            ["--slo", "p99=5ms", "--batch", "1,2", "--api", "sync,async"],
            "--batch, --api give 4 configurations; capacity is searched for one",
        ),
    ],
)
def test_bad_input_is_one_line_and_stores_nothing(
    model: Path, tmp_path: Path, args: list[str], expected: str
) -> None:
    db = tmp_path / "db" / "r.json"
    line = one_error_line(perftui("capacity", str(model), *args, "--db", str(db)))
    assert expected in line
    assert not db.exists()


def test_an_unknown_project_or_missing_model_is_said(tmp_path: Path) -> None:
    db = tmp_path / "r.json"
    assert "no project named 'nosuch'" in one_error_line(
        perftui("capacity", "nosuch", "--slo", "p99=5ms", "--db", str(db))
    )
    assert "model file gone.onnx does not exist" in one_error_line(
        perftui("capacity", "gone.onnx", "--slo", "p99=5ms", "--db", str(db))
    )
    assert not db.exists()


def test_a_capacity_on_the_sample_mobilenet_is_stored_as_a_benchmark(tmp_path: Path) -> None:
    """A generous objective and a small budget: the closed loop, then a search whose every
    run is a stored run of one benchmark, and the capacity below the closed-loop maximum."""
    from perftui.store import Store

    db = tmp_path / "r.json"
    result = perftui(
        "capacity", str(MOBILENET_IR), "--slo", "p99=200ms", "--budget", "12", "--time", "1",
        "--threads", "1", "--project", "mn", "--json", "--db", str(db), timeout=150,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert "rate " in result.stderr  # each search run's progress line
    closed = doc["closed_loop"]
    assert closed["rate"] > 0 and closed["rate_ci"][0] <= closed["rate"] <= closed["rate_ci"][1]
    assert doc["curve"] and doc["capacity"] is not None, doc["stopped"]
    assert doc["capacity"] < closed["rate_ci"][1] * 1.1
    assert doc["capacity_ci"][0] == doc["capacity"]
    assert doc["objectives"] == [{"statistic": "p99", "bound_ms": 200.0}]
    assert doc["ended"] and doc["config"].get("rate") is None  # the closed loop's configuration

    store = Store(db)
    (benchmark,) = store.project_benchmarks("mn")
    assert benchmark.capacity is not None and benchmark.capacity.ended
    assert benchmark.capacity.stopped == doc["stopped"]
    runs = [r for r in store.runs("mn") if r.benchmark_id == benchmark.id]
    assert len(runs) == 1 + len(doc["curve"])
    searched = [r for r in runs if r.config.rate is not None]
    assert all(r.traffic is not None and store.latency_samples(r.id) is not None for r in searched)
    assert {r.config.rate for r in searched} == {p["rate"] for p in doc["curve"]}

    text = perftui("capacity", "mn", "--slo", "p99=200ms", "--budget", "0.5", "--time", "0.5",
                   "--db", str(db), timeout=150)  # fmt: skip
    assert text.returncode == 0, text.stderr
    assert "closed-loop maximum" in text.stdout and "the budget of 0.5 s ran out" in text.stdout


def test_ctrl_c_keeps_the_runs_measured_and_says_the_search_was_cut_short(
    tmp_path: Path,
) -> None:
    import signal
    import subprocess
    import sys

    from perftui.store import Store
    from tests.conftest import ROOT
    from tests.process_helpers import read_until

    db = tmp_path / "r.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "perftui", "capacity", str(MOBILENET_IR), "--slo", "p99=200ms",
         "--budget", "60", "--time", "0.5", "--threads", "1", "--project", "mn",
         "--db", str(db)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    read_until(process.stderr, "rate ", timeout_s=120)  # the first search run is judged
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "the search stopped: cancelled while" in out
    (benchmark,) = Store(db).project_benchmarks("mn")
    assert benchmark.capacity is not None and benchmark.capacity.ended
    assert (benchmark.capacity.stopped or "").startswith("cancelled while")
    runs = Store(db).runs("mn")
    assert len(runs) >= 2 and all(r.status == "ok" for r in runs)


def test_a_project_of_another_machine_or_with_model_flags_is_refused(tmp_path: Path) -> None:
    from perftui.domain.records import Project
    from perftui.store import Store

    db = tmp_path / "r.json"
    store = Store(db)
    store.ensure_project(Project("far", "/models/m.onnx", "onnxruntime", target="box"))
    store.ensure_project(Project("near", "/models/m.onnx", "onnxruntime"))
    line = one_error_line(perftui("capacity", "far", "--slo", "p99=5ms", "--db", str(db)))
    assert "is measured on target box; capacity searches on this machine only" in line
    line = one_error_line(
        perftui("capacity", "near", "--slo", "p99=5ms", "--device", "GPU", "--db", str(db))
    )
    assert "--device: project 'near' brings its own model, engine and device" in line
    assert Store(db).project_benchmarks("far") == Store(db).project_benchmarks("near") == []
