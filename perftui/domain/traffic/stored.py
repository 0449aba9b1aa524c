"""The capacity of a stored search, computed from its benchmark's runs and objectives: the
one figure every place shows (the CLI, its JSON, compare, the report, the dashboard).

Each open-loop run is judged (capacity.judge) on its stored traffic figures. The capacity is
the highest rate that met the objectives below the lowest rate that failed them (a rate that
met once and failed once failed: a refuted confirmation), with the interval [that rate, the
lowest failing rate]; it is confirmed when that rate met in every one of two or more runs
(the search runs a rate twice only to confirm it). This is what `search_capacity` returns for
the same runs, so a stored search reads back as it ended.

The capacity also carries the verdict (perftui.domain.measurement.verdict, through each run's
figures) of the runs at its rate: an invalid run still counts in the bracket, as it did in the
search, but every place that shows the capacity says that it rests on an invalid run, and why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from perftui.domain.measurement.verdict import Verdict, worst
from perftui.domain.records import RunConfig, RunResult, StoredBenchmark
from perftui.domain.traffic.capacity import Capacity, Point, judge, knee
from perftui.domain.traffic.objective import Objective
from perftui.domain.traffic.search import CapacitySearch

if TYPE_CHECKING:
    from perftui.domain.measurement.figures import Figures
    from perftui.domain.measurement.uncertainty import Interval

FiguresOf = Callable[[RunResult], "Figures | None"]


def capacity_of(
    runs: Sequence[RunResult],
    objectives: Sequence[Objective],
    *,
    stopped: str | None = None,
    elapsed_s: float = 0.0,
) -> Capacity:
    """The capacity under `objectives` from a search's runs (those without traffic figures,
    or that did not end ok, are left out), the curve in the order given."""
    curve: list[Point] = []
    seen: set[float] = set()
    for run in runs:
        if run.traffic is None or run.status != "ok":
            continue
        figures = run.traffic
        reasons = judge(figures, objectives)
        again = figures.rate in seen
        seen.add(figures.rate)
        curve.append(Point(figures.rate, figures.window_s, figures, not reasons, reasons, again))
    failing = [p.rate for p in curve if not p.meets]
    hi = min(failing) if failing else None
    met = [p.rate for p in curve if p.meets and (hi is None or p.rate < hi)]
    rate = max(met) if met else None
    at_rate = [p for p in curve if p.rate == rate]
    return Capacity(
        objectives=tuple(objectives),
        rate=rate,
        hi=hi,
        confirmed=len(at_rate) >= 2 and all(p.meets for p in at_rate),
        curve=tuple(curve),
        knee=knee(curve),
        stopped=stopped,
        elapsed_s=elapsed_s,
    )


@dataclass(frozen=True)
class StoredCapacity:
    """A stored capacity search: its benchmark, what it searched, the capacity from its runs
    and the closed-loop run measured before it (None where that failed or was cut short)."""

    benchmark_id: str
    config: RunConfig
    """The configuration searched (its rate None: the closed loop's)."""
    search: CapacitySearch
    capacity: Capacity
    closed: RunResult | None
    verdict: Verdict | None = None
    """The verdict of the runs at the capacity's rate (the worst of them, every reason);
    None where no rate met or their figures are not known."""


def capacity_verdict(
    runs: Sequence[RunResult], rate: float | None, figures: FiguresOf
) -> Verdict | None:
    """The verdict of the search `runs` at `rate` (the capacity's run and its confirming run)."""
    at_rate = [r for r in runs if r.traffic is not None and r.status == "ok"
               and r.traffic.rate == rate]  # fmt: skip
    verdicts = [found.verdict for r in at_rate if (found := figures(r)) is not None]
    if rate is None or not verdicts:
        return None
    reasons = dict.fromkeys(reason for v in verdicts for reason in v.reasons)
    return Verdict(worst([v.status for v in verdicts]), tuple(reasons))


def stored_capacity(
    benchmark: StoredBenchmark, runs: Sequence[RunResult], figures: FiguresOf
) -> StoredCapacity:
    """`benchmark`'s search (its `capacity` set) from the project's `runs`, oldest first;
    `figures` gives each run's verdict."""
    search = benchmark.capacity
    assert search is not None, "not a capacity search"
    mine = sorted(
        (r for r in runs if r.benchmark_id == benchmark.id), key=lambda r: r.started_at or ""
    )
    closed = next((r for r in mine if r.config.rate is None and r.status == "ok"), None)
    capacity = capacity_of(
        mine, search.objectives, stopped=search.stopped, elapsed_s=search.elapsed_s or 0.0
    )
    return StoredCapacity(
        benchmark_id=benchmark.id,
        config=benchmark.request.configs[0],
        search=search,
        capacity=capacity,
        closed=closed,
        verdict=capacity_verdict(mine, capacity.rate, figures),
    )


def latest_capacity(
    benchmarks: Sequence[StoredBenchmark], runs: Sequence[RunResult], figures: FiguresOf
) -> StoredCapacity | None:
    """A project's newest capacity search (`benchmarks` oldest first, as the store lists
    them), or None where it has none."""
    found = [b for b in benchmarks if b.capacity is not None]
    return stored_capacity(found[-1], runs, figures) if found else None


def closed_loop_max(run: RunResult, figures: FiguresOf) -> tuple[float, Interval | None]:
    """The closed-loop maximum in requests (batches) per second, and its interval where the
    run's figures give one: the rate a capacity lies below."""
    from dataclasses import replace

    batch = max(1, run.config.batch)
    found = figures(run)
    interval = found.throughput if found is not None else None
    if interval is not None:
        interval = replace(
            interval, value=interval.value / batch, lo=interval.lo / batch, hi=interval.hi / batch
        )
    return run.throughput_fps / batch, interval
