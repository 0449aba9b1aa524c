"""The sweet spot ranked by throughput or by cost per million inferences, under the latency
limit: one rule for `perftui compare` and the compare screen (domain.compare.ranking)."""

from __future__ import annotations

from dataclasses import replace

from perftui.domain.compare import Side, compare_projects
from perftui.domain.compare.ranking import (
    COST,
    THROUGHPUT,
    Candidate,
    candidates,
    priced,
    sweet_spot,
)
from tests.tui.compare_data import run


def at_price(result, price: float):
    environment = {**result.resolved["environment"], "price_per_hour": price}
    return replace(result, resolved={**result.resolved, "environment": environment})


HERE = [at_price(run("here", 1, 1, 0, 300.0), 0.10), run("here", 2, 1, 2, 1000.0)]
"""300/s at 0.10 per hour (0.093 per million); 1000/s measured without a price."""
BOX = [at_price(run("box", 3, 1, 0, 500.0), 0.50), at_price(run("box", 4, 8, 0, 600.0), 0.50)]
"""500/s at 2 ms and 600/s at 13 ms, both at 0.50 per hour (0.28 and 0.23 per million)."""


def offered() -> list[Candidate]:
    return candidates(Side.A, HERE) + candidates(Side.B, BOX)


def test_cost_ranks_the_cheapest_priced_run_under_the_limit():
    fastest = sweet_spot(offered(), 10.0, "median", rank=THROUGHPUT)
    cheapest = sweet_spot(offered(), 10.0, "median", rank=COST)
    assert fastest is not None and fastest.run.id == "here-2"  # unpriced, but the fastest
    assert cheapest is not None and cheapest.run.id == "here-1"
    # the box's cheaper run is over the limit: without a limit it is in the running
    assert sweet_spot(offered(), None, "median", rank=COST).run.id == "here-1"  # type: ignore[union-attr]
    box_only = [c for c in offered() if c.side is Side.B]
    assert sweet_spot(box_only, 10.0, "median", rank=COST).run.id == "box-3"  # type: ignore[union-attr]
    assert sweet_spot(box_only, None, "median", rank=COST).run.id == "box-4"  # type: ignore[union-attr]


def test_no_priced_run_no_cost_sweet_spot():
    unpriced = candidates(Side.A, [run("a", 1, 1, 0, 300.0)])
    assert sweet_spot(unpriced, 10.0, "median", rank=COST) is None
    assert not priced([c.run for c in unpriced]) and priced(HERE)


def test_the_comparison_says_its_ranking_and_picks_each_sides_run_by_it():
    by_cost = compare_projects("here", HERE, "box", BOX, 20.0, rank=COST)
    assert by_cost.rank == COST and by_cost.sweet is not None
    assert (by_cost.a.id, by_cost.b.id) == ("here-1", "box-4")  # type: ignore[union-attr]
    assert any("cheapest configuration at or under 20 ms" in note for note in by_cost.notes)
    by_fps = compare_projects("here", HERE, "box", BOX, 20.0)
    assert by_fps.rank == THROUGHPUT and (by_fps.a.id, by_fps.b.id) == ("here-2", "box-4")  # type: ignore[union-attr]


def windowed(result, swing: float):
    """A run whose timed windows swing by `swing` around its throughput (its interval)."""
    fps = result.throughput_fps
    return replace(result, window_fps=tuple(fps * (1 + swing * (i % 3 - 1)) for i in range(12)))


def test_the_cheapest_lists_the_runs_whose_cost_intervals_overlap_its_own():
    cheap = windowed(at_price(run("here", 1, 1, 0, 300.0), 0.10), 0.01)  # 0.0926 per million
    same = windowed(at_price(run("box", 2, 1, 0, 1490.0), 0.50), 0.01)  # 0.0932: overlaps
    dear = windowed(at_price(run("box", 3, 2, 0, 600.0), 0.50), 0.01)  # 0.231: apart
    blurred = windowed(at_price(run("box", 4, 4, 0, 1300.0), 0.50), 0.30)  # 0.107 ± 30 %
    c = compare_projects("here", [cheap], "box", [same, dear, blurred], 20.0, rank=COST)
    assert c.sweet is not None and c.sweet.run.id == "here-1"
    assert sorted(x.run.id for x in c.sweet.within_noise) == ["box-2", "box-4"]
    steady = replace(blurred, window_fps=(1300.0,) * 12)  # the same cost, no spread: apart
    c = compare_projects("here", [cheap], "box", [same, dear, steady], 20.0, rank=COST)
    assert [x.run.id for x in c.sweet.within_noise] == ["box-2"]  # type: ignore[union-attr]
