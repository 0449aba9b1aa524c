"""Issue 42 in compare: the rate is a setting like any other, so like for like compares p99
from arrival at the same rate on both sides; where the compared runs ran at different loads
(a rate and a closed loop, or two rates) B/A is not given and the comparison says which side
lacks the rate."""

from __future__ import annotations

import numpy as np

from perftui.domain.compare.chart import inference_time
from perftui.domain.compare.projects import compare_projects
from perftui.domain.records import RunConfig
from tests.factories import flat_latency, run_result, traffic


def at(project: str, rate: float | None, p99: float, fps: float, n: int = 0):
    config = RunConfig(rate=rate)
    return run_result(
        fps,
        config=config,
        latency_ms=flat_latency(p99 / 2, p99=p99),
        traffic=None if rate is None else traffic(rate, p99 / 2, p99),
        window_fps=tuple(fps * (1 + 0.01 * (i % 3 - 1)) for i in range(12)),
        id=f"{project}-{rate}-{n}",
        project=project,
    )


def samples(run):
    """Latencies from arrival spread up to the run's p99 (ms)."""
    assert run.latency_ms is not None and run.latency_ms.p99 is not None
    return np.linspace(0.5, 1.0, 1000) * run.latency_ms.p99


def test_the_same_rate_on_both_sides_is_compared_like_for_like():
    a_runs = [at("fp32", 200.0, 8.0, 200.0), at("fp32", 400.0, 30.0, 390.0)]
    b_runs = [at("int8", 200.0, 4.0, 200.0), at("int8", 100.0, 3.0, 100.0)]
    c = compare_projects("fp32", a_runs, "int8", b_runs, stat="p99", samples=samples)
    assert c.a is not None and c.b is not None
    assert c.a.config.rate == c.b.config.rate == 200.0
    assert c.settings_note is None and c.unlike is None
    assert "like for like" in " ".join(c.notes) and "@200/s" in " ".join(c.notes)
    assert c.latency is not None and c.latency.ratio is not None
    assert abs(c.latency.ratio.value - 0.5) < 1e-6  # p99 from arrival at 200/s: 4 ms over 8 ms
    assert abs(inference_time(c, "latency").ratio - 0.5) < 1e-6


def test_a_side_without_the_rate_is_said_rather_than_compared_with_a_closed_loop():
    a_runs = [at("fp32", 200.0, 8.0, 200.0)]
    b_runs = [at("int8", None, 2.0, 900.0)]
    c = compare_projects("fp32", a_runs, "int8", b_runs, stat="p99", a_pinned=a_runs[0].id)
    assert c.throughput is None and c.latency is None
    assert c.unlike is not None and c.unlike in c.notes and c.unlike in c.measurement_notes
    assert c.unlike.startswith("B (int8) has no run at 200/s")
    assert "A @200/s, B closed loop" in c.unlike
    assert inference_time(c, "latency").ratio is None
    assert inference_time(c, "throughput").ratio is None


def test_two_different_rates_are_not_divided():
    a_runs = [at("fp32", 200.0, 8.0, 200.0)]
    b_runs = [at("int8", 400.0, 9.0, 400.0)]
    pins = {"a_pinned": a_runs[0].id, "b_pinned": b_runs[0].id}
    c = compare_projects("fp32", a_runs, "int8", b_runs, stat="p99", **pins)
    assert c.latency is None and c.unlike is not None
    assert "B (int8) has no run at 200/s" in c.unlike and "A (fp32) has no run at 400/s" in c.unlike


def test_a_run_pinned_at_a_rate_meets_the_other_sides_run_at_that_rate():
    a_runs = [at("fp32", None, 3.0, 900.0), at("fp32", 200.0, 8.0, 200.0)]
    b_runs = [at("int8", None, 1.5, 1800.0), at("int8", 200.0, 4.0, 200.0)]
    pinned = a_runs[1].id
    c = compare_projects("fp32", a_runs, "int8", b_runs, stat="p99", a_pinned=pinned)
    assert c.b is b_runs[1] and c.unlike is None and c.latency is not None
    c = compare_projects("fp32", a_runs, "int8", b_runs[:1], stat="p99", a_pinned=pinned)
    assert c.b is b_runs[0] and c.unlike is not None and c.latency is None


def test_the_sweet_spot_and_its_close_ones_are_closed_loop_configurations():
    """A run at a rate offers its throughput and counts queueing in its latency: it never
    stands beside closed-loop runs as the fastest under a threshold."""
    from perftui.domain.compare.ranking import ranked_sweet_spot

    a_runs = [at("fp32", None, 3.0, 900.0), at("fp32", 2000.0, 2.0, 2000.0)]
    b_runs = [at("int8", None, 2.5, 950.0), at("int8", 1000.0, 1.0, 1000.0)]
    spot = ranked_sweet_spot(a_runs, b_runs, 5.0, "p99", samples)
    assert spot is not None and spot.run is b_runs[0]
    assert all(c.group.config.rate is None for c in spot.within_noise)
    c = compare_projects("fp32", a_runs, "int8", b_runs, 5.0, stat="p99", samples=samples)
    assert c.sweet is not None and c.sweet.run is b_runs[0]
    assert c.a is a_runs[0] and c.b is b_runs[0]


def test_each_sides_pick_is_its_fastest_closed_loop_configuration():
    from perftui.domain.compare.projects import pick_run

    runs = [at("fp32", None, 3.0, 900.0), at("fp32", 2000.0, 2.0, 2000.0)]
    assert pick_run(runs, None, "p99") is runs[0]
    assert pick_run(runs, 2.5, "p99") is runs[0]  # nothing closed-loop under: still not a rate


def test_a_side_with_only_rates_says_it_has_no_closed_loop_run():
    a_runs = [at("fp32", 200.0, 8.0, 200.0), at("fp32", 400.0, 9.0, 400.0)]
    b_runs = [at("int8", None, 2.0, 900.0)]
    c = compare_projects("fp32", a_runs, "int8", b_runs, stat="p99")
    assert c.a is None and c.b is b_runs[0] and c.throughput is None
    assert "A (fp32) has no closed-loop run to compare" in " ".join(c.notes)


def test_like_for_like_prefers_a_shared_closed_loop_configuration_to_a_rate():
    a_runs = [at("fp32", None, 3.0, 900.0), at("fp32", 2000.0, 2.0, 2000.0)]
    b_runs = [at("int8", None, 2.0, 1800.0), at("int8", 2000.0, 1.0, 2000.0)]
    c = compare_projects("fp32", a_runs, "int8", b_runs, stat="p99", samples=samples)
    assert c.a is a_runs[0] and c.b is b_runs[0] and c.unlike is None


def test_a_threshold_only_runs_at_a_rate_meet_is_said_to_be_met_by_no_closed_loop_run():
    a_runs = [at("fp32", None, 30.0, 900.0), at("fp32", 200.0, 4.0, 200.0)]
    b_runs = [at("int8", None, 20.0, 1800.0)]
    c = compare_projects("fp32", a_runs, "int8", b_runs, 10.0, stat="p99", samples=samples)
    assert c.sweet is None and c.a is a_runs[0]
    said = " ".join(c.notes)
    assert "A (fp32) has no run at or under 10 ms (p99): its fastest configuration" in said
    assert "no selected closed-loop run has a p99 latency at or under 10 ms" in said
