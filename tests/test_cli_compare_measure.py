"""`perftui compare A B --measure N` end to end: both sides measured again alternately by
the real engine, each into its own project, and B/A judged from the rounds' pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import bench_json, long_and_short, one_error_line, perftui
from tests.conftest import ENCODER

pytestmark = pytest.mark.engine


def run_count(db: Path, project: str) -> int:
    shown = perftui("show", project, "--json", db=db)
    return len(json.loads(shown.stdout)["runs"])


def test_measure_runs_both_sides_alternately_and_judges_the_pairs(tmp_path: Path):
    db = tmp_path / "db.json"
    long_and_short(db)
    done = perftui("compare", "long", "short", "--measure", "2", "--time", "0.2", "--json", db=db)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["paired_rounds"] == 2
    assert any("measured alternately, 2 rounds" in note for note in found["notes"])
    assert found["throughput"]["ratio"] > 1  # a quarter of the sequence runs faster
    progress = [line for line in done.stderr.splitlines() if line.startswith("run ")]
    assert [line.split()[1] for line in progress] == ["1/4", "2/4", "3/4", "4/4"]
    # round 1 is A then B, round 2 B then A
    assert [line.split()[-6] for line in progress] == [
        "seq=128:", "seq=32:", "seq=32:", "seq=128:"
    ]  # fmt: skip
    assert run_count(db, "long") == 3 and run_count(db, "short") == 3


@pytest.mark.parametrize(
    ("rounds", "words"),
    [("1", "from 2 to 50"), ("x", "from 2 to 50"), ("999", "from 2 to 50")],
)
def test_a_bad_number_of_rounds_is_refused_before_measuring(
    tmp_path: Path, rounds: str, words: str
):
    db = tmp_path / "db.json"
    long_and_short(db)
    line = one_error_line(perftui("compare", "long", "short", "--measure", rounds, db=db))
    assert line.startswith("perftui: error: --measure:") and words in line
    assert run_count(db, "long") == 1 and run_count(db, "short") == 1


def test_a_model_that_moved_is_refused_with_nothing_stored(tmp_path: Path):
    db = tmp_path / "db.json"
    model = tmp_path / "encoder.onnx"
    model.write_bytes(ENCODER.read_bytes())
    for name, path in (("gone", model), ("here", ENCODER)):
        bench_json(
            str(path), "--engine", "onnxruntime", "--shape", "seq=16", "--project", name, db=db
        )
    model.unlink()
    line = one_error_line(perftui("compare", "gone", "here", "--measure", db=db))
    assert "encoder.onnx" in line
    assert run_count(db, "gone") == 1 and run_count(db, "here") == 1
    same = one_error_line(perftui("compare", "here", "here", "--measure", db=db))
    assert "two different projects" in same


def test_a_bad_run_length_is_refused_before_measuring(tmp_path: Path):
    db = tmp_path / "db.json"
    long_and_short(db)
    alone = one_error_line(perftui("compare", "long", "short", "--time", "1", db=db))
    assert "give --measure too" in alone
    for bad in ("0", "-1", "x", "1e9"):
        line = one_error_line(
            perftui("compare", "long", "short", "--measure", "--time", bad, db=db)
        )
        assert line.startswith("perftui: error: --time:")
    assert run_count(db, "long") == 1 and run_count(db, "short") == 1
