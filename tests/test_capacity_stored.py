"""The capacity computed from stored runs (perftui.domain.traffic.stored): the same figure the
search returned in the same process, and the rules it is computed by."""

from __future__ import annotations

from collections.abc import Sequence

from perftui.domain.records import (
    BenchmarkRequest,
    Project,
    RunConfig,
    RunResult,
    StoredBenchmark,
)
from perftui.domain.traffic.capacity import Capacity, Point, SearchPlan, search_capacity
from perftui.domain.traffic.figures import TrafficFigures, traffic_figures
from perftui.domain.traffic.objective import parse_objectives
from perftui.domain.traffic.search import CapacitySearch
from perftui.domain.traffic.stored import capacity_of, latest_capacity, stored_capacity
from tests.test_capacity import GENEROUS, Simulated, queue

PLAN = SearchPlan(start_rate=50.0, budget_s=600.0)
NO_FIGURES = lambda _run: None  # noqa: E731  (verdicts: tests/test_capacity_verdict.py)


def stored_runs(curve: Sequence[Point], benchmark_id: str = "b") -> list[RunResult]:
    """The search's points as the store hands them back (through their JSON documents)."""
    runs = [
        RunResult(
            config=RunConfig(rate=p.rate),
            traffic=p.figures,
            benchmark_id=benchmark_id,
            started_at=f"2026-11-29T10:{i:02d}:00+00:00",
        )
        for i, p in enumerate(curve)
    ]
    return [RunResult.from_dict(run.to_dict()) for run in runs]


def agree(found: Capacity) -> Capacity:
    again = capacity_of(stored_runs(found.curve), found.objectives)
    assert (again.rate, again.hi, again.confirmed, again.knee) == (
        found.rate,
        found.hi,
        found.confirmed,
        found.knee,
    )
    assert [p.meets for p in again.curve] == [p.meets for p in found.curve]
    assert [p.confirming for p in again.curve] == [p.confirming for p in found.curve]
    return again


def test_the_stored_runs_give_the_capacity_the_search_returned() -> None:
    found = Simulated().search(GENEROUS, PLAN)
    assert found.confirmed and found.rate is not None
    agree(found)
    tight = Simulated().search(parse_objectives("p99=30ms,median=15ms"), PLAN)
    agree(tight)


def test_a_search_cut_short_or_finding_nothing_reads_back_the_same() -> None:
    short = Simulated().search(GENEROUS, SearchPlan(start_rate=10.0, budget_s=60.0))
    assert not short.confirmed and short.stopped
    agree(short)
    none = Simulated().search(parse_objectives("median=5ms"), SearchPlan(50.0, 3600.0))
    assert none.rate is None
    assert agree(none).hi == none.hi


def test_a_refuted_confirmation_moves_the_capacity_down_in_both() -> None:
    """The confirming run fails (a machine hiccup, simulated as a saturated run): the rate
    that met once and failed once is no capacity; the next lower one that met is."""
    simulated = Simulated()
    refuted: list[float] = []
    seen: set[float] = set()

    def measure(rate: float, window_s: float) -> TrafficFigures:
        again, _ = rate in seen, seen.add(rate)
        if again and not refuted:  # the search runs a rate again only to confirm it
            refuted.append(rate)
            simulated.now += window_s
            return traffic_figures(queue(rate * 3, window_s), rate)
        return simulated.measure(rate, window_s)

    found = search_capacity(measure, GENEROUS, PLAN, lambda: simulated.now)
    assert refuted and found.rate is not None and found.rate < refuted[0]
    assert found.hi is not None and found.hi <= refuted[0]
    again = agree(found)
    assert [p.rate for p in again.curve].count(refuted[0]) == 2


def test_the_search_runs_rates_of_three_significant_digits() -> None:
    found = Simulated().search(GENEROUS, PLAN)
    assert all(p.rate == float(f"{p.rate:.3g}") for p in found.curve)


def figures(rate: float, saturating: bool = False) -> TrafficFigures:
    return traffic_figures(queue(rate * (3 if saturating else 1), 20.0), rate)


def test_only_runs_with_traffic_that_ended_ok_count_and_a_failing_rate_caps_the_capacity() -> None:
    runs = [
        RunResult(config=RunConfig(), throughput_fps=100.0),  # the closed loop
        RunResult(config=RunConfig(rate=30.0), traffic=figures(30.0)),
        RunResult(config=RunConfig(rate=40.0), traffic=figures(40.0, saturating=True)),
        RunResult(config=RunConfig(rate=60.0), traffic=figures(60.0)),  # met above a failure
        RunResult(config=RunConfig(rate=35.0), status="cancelled", traffic=figures(35.0)),
    ]
    found = capacity_of(runs, GENEROUS)
    assert [p.rate for p in found.curve] == [30.0, 40.0, 60.0]
    assert (found.rate, found.hi, found.confirmed) == (30.0, 40.0, False)
    assert capacity_of(runs[:2], GENEROUS).hi is None


def test_the_project_s_newest_search_is_its_capacity() -> None:
    project = Project("p", "/m.onnx", "openvino")
    request = BenchmarkRequest(project, (RunConfig(batch=2),))
    old = StoredBenchmark("b1", "p", "2026-01-01", request, CapacitySearch(GENEROUS, 60.0))
    matrix = StoredBenchmark("b2", "p", "2026-01-02", request)
    search = CapacitySearch(GENEROUS, 60.0).ending("the budget ran out", 58.0)
    new = StoredBenchmark("b3", "p", "2026-01-03", request, search)
    closed = RunResult(
        config=RunConfig(batch=2), throughput_fps=200.0, benchmark_id="b3", started_at="1"
    )
    points = Simulated().search(GENEROUS, PLAN).curve
    runs = [closed, *stored_runs(points, "b3"), *stored_runs(points[:1], "b1")]
    found = latest_capacity([old, matrix, new], runs, NO_FIGURES)
    assert found is not None and found.benchmark_id == "b3"
    assert found.closed == closed and found.config == RunConfig(batch=2)
    assert found.capacity.stopped == "the budget ran out" and found.capacity.elapsed_s == 58.0
    assert len(found.capacity.curve) == len(points)
    assert stored_capacity(old, runs, NO_FIGURES).capacity.curve == found.capacity.curve[:1]
    assert latest_capacity([matrix], runs, NO_FIGURES) is None


def test_a_benchmark_keeps_its_search_and_an_old_document_reads_as_before() -> None:
    project = Project("p", "/m.onnx", "openvino")
    request = BenchmarkRequest(project, (RunConfig(),))
    search = CapacitySearch(parse_objectives("p99=50ms,median=5ms"), 30.0).ending(None, 29.5)
    kept = StoredBenchmark("b", "p", "t", request, search)
    assert StoredBenchmark.from_dict(kept.to_dict()) == kept
    plain = StoredBenchmark("b", "p", "t", request)
    assert len(plain.to_dict()) == len(kept.to_dict()) - 1  # a matrix's document as it was
    assert StoredBenchmark.from_dict(plain.to_dict()).capacity is None
