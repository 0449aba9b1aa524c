"""Two projects' capacities compared (perftui.domain.compare.capacity): B/A with a
conservative interval, only like for like."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from perftui.domain.compare.capacity import capacity_ratio
from perftui.domain.records import RunConfig
from perftui.domain.traffic.capacity import Capacity
from perftui.domain.traffic.objective import parse_objectives
from perftui.domain.traffic.search import CapacitySearch
from perftui.domain.traffic.stored import StoredCapacity
from tests.cli_helpers import perftui
from tests.conftest import MOBILENET, MOBILENET_INT8

P99 = parse_objectives("p99=10ms")


def stored(rate: float | None, hi: float | None, **changes: object) -> StoredCapacity:
    found = Capacity(P99, rate, hi, True, (), None, None, 1.0)
    made = StoredCapacity("b", RunConfig(), CapacitySearch(P99, 60.0), found, None)
    return replace(made, **changes)  # type: ignore[arg-type]


def test_b_over_a_is_bounded_by_both_brackets() -> None:
    ratio = capacity_ratio(stored(400.0, 440.0), stored(600.0, 630.0))
    assert ratio.value == pytest.approx(1.5)
    assert ratio.lo == pytest.approx(600.0 / 440.0)
    assert ratio.hi == pytest.approx(630.0 / 400.0)
    open_ended = capacity_ratio(stored(400.0, None), stored(600.0, None))
    assert open_ended.value == pytest.approx(1.5) and (open_ended.lo, open_ended.hi) == (None, None)


def test_unlike_capacities_get_no_ratio_but_the_reason() -> None:
    other = CapacitySearch(parse_objectives("p99=20ms"), 60.0)
    assert "A's capacity is under p99 ≤ 10 ms, B's under p99 ≤ 20 ms" in (
        capacity_ratio(stored(400.0, 440.0), stored(600.0, 630.0, search=other)).why_not
    )
    batch = capacity_ratio(stored(400.0, 440.0), stored(600.0, 630.0, config=RunConfig(batch=4)))
    assert batch.value is None and "batch 1 vs 4" in batch.why_not
    none = capacity_ratio(stored(None, 10.0), stored(600.0, 630.0))
    assert none.value is None and "A met the objectives at no rate" in none.why_not


def test_compare_gives_capacity_b_over_a_of_fp32_and_int8(tmp_path: Path) -> None:
    """The sample MobileNet's FP32 and INT8 searched at one objective, then compared."""
    db = tmp_path / "r.json"
    for name, model in (("fp32", MOBILENET), ("int8", MOBILENET_INT8)):
        result = perftui(
            "capacity", str(model), "--slo", "p99=200ms", "--budget", "10", "--time", "1",
            "--threads", "1", "--project", name, "--db", str(db), timeout=150,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
    result = perftui("compare", "fp32", "int8", "--json", "--db", str(db))
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)["capacity"]
    assert found["a"]["capacity"] and found["b"]["capacity"], found
    lo, hi = found["ratio_ci"]
    assert found["ratio"] == pytest.approx(found["b"]["capacity"] / found["a"]["capacity"])
    assert (lo is None or lo <= found["ratio"]) and (hi is None or found["ratio"] <= hi)
    text = perftui("compare", "fp32", "int8", "--db", str(db))
    assert "capacity B/A" in text.stdout, text.stdout

    again = perftui(
        "capacity", "int8", "--slo", "median=50ms", "--budget", "0.5", "--time", "0.5",
        "--threads", "1", "--db", str(db), timeout=150,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    text = perftui("compare", "fp32", "int8", "--db", str(db))
    assert "no B/A: A's capacity is under p99 ≤ 200 ms, B's under median ≤ 50 ms" in text.stdout
