"""Issue 40, item 3: the sweet spot and the cheapest rank configurations, their repetitions
combined (as the projects list combines them), with their intervals, in `perftui compare`'s
text and JSON; "no other priced configuration's cost interval overlaps it" holds of the
combined intervals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perftui.domain.compare import Side, compare_projects
from perftui.domain.compare.ranking import COST, candidates, cost_interval, ranked_sweet_spot
from tests.cli_helpers import perftui
from tests.sweet_data import A_RUNS, B_RUNS, THRESHOLD, store_both


def test_the_sweet_spot_is_the_best_configuration_combined():
    c = compare_projects("fp32", A_RUNS, "int8", B_RUNS, THRESHOLD)
    spot = c.sweet
    assert spot is not None and (spot.side, spot.group.config.batch) == ("A", 2)
    assert spot.throughput_fps == pytest.approx(2750.0) and len(spot.group.runs) == 5
    assert spot.throughput is not None and spot.throughput.lo < 2750.0 < spot.throughput.hi
    assert spot.latency_ms <= THRESHOLD and spot.latency_ms == spot.group.latency_ms("median")
    # A's b1 (2,707.8, its lucky round 2,809) is within noise of it, B's b4 is over the limit
    assert [(x.side, x.group.config.batch) for x in spot.within_noise] == [("A", 1)]
    assert (c.a.config.batch, c.b.config.batch) == (2, 1)  # type: ignore[union-attr]


def test_the_cheapest_is_the_cheapest_configuration_and_its_overlaps_are_true():
    spot = ranked_sweet_spot(A_RUNS, B_RUNS, THRESHOLD, "median", lambda _r: None, rank=COST)
    assert spot is not None and spot.group.config.batch == 2 and spot.side == "A"
    own = cost_interval(spot.group)
    assert own is not None
    listed = {(x.side, x.group.config) for x in spot.within_noise}
    offered = candidates(Side.A, A_RUNS) + candidates(Side.B, B_RUNS)
    under = [
        c
        for c in offered
        if (c.side, c.group.config) != (spot.side, spot.group.config)
        and (c.latency_ms("median") or 0.0) <= THRESHOLD
    ]
    assert len(under) == 2  # A's b1 and B's b1; B's b4 is over the limit, combined
    for c in under:  # listed exactly when the combined cost intervals overlap
        found = cost_interval(c.group)
        assert found is not None
        overlaps = found[0] <= own[1] and own[0] <= found[1]
        assert overlaps == ((c.side, c.group.config) in listed)
    assert [x.group.config.batch for x in spot.within_noise] == [1]


def test_compare_prints_the_combined_figures(tmp_path: Path):
    db = tmp_path / "db.json"
    store_both(db)
    done = perftui("compare", "fp32", "int8", "--threshold", f"{THRESHOLD:g}", "--json", db=db)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    sweet = doc["sweet_spot"]
    assert sweet["side"] == "A" and sweet["config"].startswith("b2 ") and sweet["repeats"] == 5
    assert sweet["throughput_fps"] == pytest.approx(2750.0)
    lo, hi = sweet["throughput_ci"]
    assert lo < 2750.0 < hi and sweet["latency_ms"] <= THRESHOLD
    assert [x["config"][:3] for x in sweet["within_noise"]] == ["b1 "]
    cheapest = doc["cheapest"]
    assert cheapest["config"].startswith("b2 ") and cheapest["throughput_fps"] == pytest.approx(
        2750
    )
    own = cheapest["cost_ci"]
    for x in cheapest["within_noise"]:
        assert x["cost_ci"][0] <= own[1] and own[0] <= x["cost_ci"][1]
    text = perftui("compare", "fp32", "int8", "--threshold", f"{THRESHOLD:g}", db=db).stdout
    line = next(x for x in text.splitlines() if x.startswith("sweet spot"))
    assert "A fp32 b2 " in line and "2,750.0 ±" in line and "5 repeats combined" in line, line
    cheap = next(x for x in text.splitlines() if x.startswith("cheapest per inference"))
    assert "A fp32 b2 " in cheap and "2,750.0 ±" in cheap, cheap
    assert "2,809" not in text and "5,000" not in text  # no lucky repetition
