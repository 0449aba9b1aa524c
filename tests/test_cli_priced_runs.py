"""Every way of measuring records this machine's price with its runs, not only `bench`:
tune's trials, `compare --measure`'s rounds and the gate's rounds (tests/test_cost.py has
bench's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import bench_json, perftui
from tests.conftest import MOBILENET

pytestmark = pytest.mark.engine
QUICK = ["--time", "0.2", "--iterations", "5", "--warmup", "1"]
SPACE = "batch=1 threads=1 streams=1 requests=1 hint=latency api=sync"


def priced_runs(db: Path, project: str) -> list[bool]:
    """Whether each run of `project` has a cost, oldest first."""
    shown = perftui("show", project, "--json", db=db)
    assert shown.returncode == 0, shown.stderr
    runs = sorted(json.loads(shown.stdout)["runs"], key=lambda run: run["started_at"])
    return [run["cost_per_million"] is not None for run in runs]


def test_tune_measure_and_gate_runs_record_the_price(isolated_db: Path) -> None:
    for name in ("a", "b"):
        bench_json(str(MOBILENET), "--engine", "onnxruntime", "--project", name, db=isolated_db)
    assert perftui("targets", "price", "local", "0.30", db=isolated_db).returncode == 0

    tuned = perftui(
        "tune", "a", "--max-latency", "1000", "--trials", "1", *QUICK, "--space", SPACE,
        db=isolated_db,
    )  # fmt: skip
    assert tuned.returncode in (0, 1), tuned.stderr  # 1: too noisy to name a best
    measured = perftui("compare", "a", "b", "--measure", "2", "--time", "0.2", db=isolated_db)
    assert measured.returncode == 0, measured.stderr
    gated = perftui("gate", "a", "b", "--rounds", "5", "--time", "0.2", db=isolated_db)
    assert gated.returncode in (0, 1, 3), gated.stderr

    a, b = priced_runs(isolated_db, "a"), priced_runs(isolated_db, "b")
    # a: its bench (before the price), the tune's trial, 2 measured rounds, 5+ gate rounds
    assert not a[0] and len(a) >= 1 + 1 + 2 + 5
    assert not b[0] and len(b) >= 1 + 2 + 5
    assert all(a[1:]) and all(b[1:])
