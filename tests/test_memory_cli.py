"""Memory through the real entry point: the runs table and JSON, bad memory limits refused
with one line, exit 2 and nothing stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import one_error_line, perftui
from tests.conftest import MOBILENET

QUICK = ["--time", "0.1", "--iterations", "3", "--warmup", "1"]


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("memory") / "db.json"
    for name in ("a", "b"):
        result = perftui("bench", str(MOBILENET), "--project", name, *QUICK, db=db)
        assert result.returncode == 0, result.stderr
    return db


def runs_of(db: Path, project: str) -> list[dict]:
    result = perftui("show", project, "--json", db=db)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["runs"]


@pytest.mark.engine
def test_show_and_compare_carry_memory(measured: Path) -> None:
    (run,) = runs_of(measured, "a")
    memory = run["memory"]
    assert memory["window_peak_mib"] > memory["baseline_mib"] > 0
    table = perftui("show", "a", db=measured)
    assert "peak MiB" in table.stdout and "compile MiB" in table.stdout
    result = perftui("compare", "a", "b", "--json", db=measured)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["memory"]["ratio"] > 0
    limited = perftui("compare", "a", "b", "--max-memory", "100000", db=measured)
    assert limited.returncode == 0, limited.stderr
    assert "memory B/A" in limited.stdout
    assert "sweet spot under 100,000 MiB" in limited.stdout


@pytest.mark.engine
@pytest.mark.parametrize("limit", ["0", "-5", "abc", "nan", "1e30"])
@pytest.mark.parametrize(
    "command",
    [
        ["compare", "a", "b"],
        ["report", "a", "b"],
        ["tune", "a", "--max-latency", "100", "--trials", "2"],
    ],
)
def test_a_bad_memory_limit_is_one_line_and_stores_nothing(
    measured: Path, command: list[str], limit: str
) -> None:
    before = len(runs_of(measured, "a"))
    line = one_error_line(perftui(*command, "--max-memory", limit, db=measured))
    assert "memory limit" in line
    assert len(runs_of(measured, "a")) == before
