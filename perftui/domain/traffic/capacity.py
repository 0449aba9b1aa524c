"""The capacity under latency objectives, searched as MLPerf's LoadGen does for its Server
scenario: bracket the rate (doubling or halving from a start below the closed-loop maximum),
bisect the bracket, then confirm the answer with a longer run.

A rate **meets** the objectives when the run kept up (not saturated), the scheduler kept its
schedule closely enough (LATENESS_SHARE), and every objective's statistic is under its bound
with confidence (the upper end of its 95 % interval; an open upper end, too few samples for it,
is not confidence). It **fails** otherwise. The capacity is the highest rate that met, with
the interval [that rate, the lowest rate above it that did not]. Pure: the runs come from
`measure`, the time from `clock`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perftui.domain.traffic.arrivals import MAX_RATE
from perftui.domain.traffic.figures import LATENESS_LIMIT_MS, TrafficFigures
from perftui.domain.traffic.objective import Objective

Measure = Callable[[float, float], TrafficFigures]
"""(rate in requests/s, window in s) -> the figures of an open-loop run at that rate."""

START_SHARE = 0.5
"""The search starts at this share of the closed-loop maximum (requests/s: a closed-loop
run's throughput over its batch): below capacity, as LoadGen's first guess is, so the first
doubling or halving already brackets it in most cases."""
DRAIN_SHARE = 1.0
"""A run waits at most this share of its window after it for its queue to drain: a search
run costs up to (1 + DRAIN_SHARE) windows, and the budget counts that."""
LATENESS_SHARE = 0.02
"""A run whose scheduler was late (TrafficFigures.schedule_kept false) still counts when its
lateness p99 is within this share of the tightest bound: its latencies hold the delay, so they
err high, and a delay that small does not reshape the traffic the bound is judged on. A busy
shared machine delays a few requests by milliseconds whatever the scheduler does."""
KNEE_FACTOR = 2.0
"""The knee is the last measured rate whose p99 stays within this factor of the p99 at the
lowest rate measured: past it, waiting in the queue dominates the latency."""


RATE_DIGITS = 3
"""Significant digits of the rates the search runs: 612/s, not 612.4837/s, in every label and
table (the bisection's resolution is far coarser than the rounding)."""


def round_rate(rate: float) -> float:
    return float(f"{rate:.{RATE_DIGITS}g}")


@dataclass(frozen=True)
class SearchPlan:
    start_rate: float
    """Where bracketing starts: START_SHARE of the closed-loop maximum."""
    budget_s: float
    """The whole search's time; it stops, and says where it got, before a run that could
    pass it (its window and the longest drain)."""
    window_s: float = 2.0
    """A search run's window (longer where it would hold fewer than `min_requests`)."""
    confirm_s: float = 6.0
    """The confirming run's window."""
    min_requests: int = 450
    """Requests a run is scheduled to hold at least: a p99 interval's upper end needs 367
    samples, and a Poisson count falls four standard deviations (77) short of its mean
    about once in 30,000 runs."""
    resolution: float = 0.05
    """Bisection stops when the bracket's ends are within this share of each other."""
    min_rate: float = 1.0
    max_rate: float = MAX_RATE


@dataclass(frozen=True)
class Point:
    """One run of the search: its rate, window, figures and judgement."""

    rate: float
    window_s: float
    figures: TrafficFigures
    meets: bool
    reasons: tuple[str, ...]
    """Why it did not meet the objectives (empty when it met them)."""
    confirming: bool = False


@dataclass(frozen=True)
class Capacity:
    objectives: tuple[Objective, ...]
    rate: float | None
    """The highest rate that met the objectives; None where none did."""
    hi: float | None
    """The lowest rate above `rate` that did not meet them, the interval's upper end; None
    where none was found."""
    confirmed: bool
    """Whether a longer run at `rate` met them too."""
    curve: tuple[Point, ...]
    """Every run in the order measured (Point.rate against its latency figures)."""
    knee: float | None
    stopped: str | None
    """Why the search ended before confirming an answer (budget, limits); None if it did."""
    elapsed_s: float

    def to_dict(self) -> dict[str, object]:
        return {
            "objectives": [
                {"statistic": o.statistic, "bound_ms": o.bound_ms} for o in self.objectives
            ],
            "capacity": self.rate,
            "capacity_ci": [self.rate, self.hi],
            "confirmed": self.confirmed,
            "knee": self.knee,
            "stopped": self.stopped,
            "elapsed_s": self.elapsed_s,
            "curve": [
                {
                    "window_s": p.window_s,
                    "meets": p.meets,
                    "confirming": p.confirming,
                    "why_not": list(p.reasons),
                    **p.figures.to_dict(),
                }
                for p in self.curve
            ],
        }


def judge(figures: TrafficFigures, objectives: Sequence[Objective]) -> tuple[str, ...]:
    """Why a run does not meet the objectives with confidence; empty when it does."""
    reasons = list(figures.saturated)
    tolerated = max(LATENESS_LIMIT_MS, LATENESS_SHARE * min(o.bound_ms for o in objectives))
    if figures.lateness_p99_ms > tolerated:
        reasons.append(
            f"the scheduler issued requests up to {figures.lateness_p99_ms:.2g} ms late (p99),"
            f" more than the {tolerated:.2g} ms the objectives tolerate"
        )
    for objective in objectives:
        found = figures.latency.get(objective.statistic)
        if found is None:
            reasons.append(f"no {objective.statistic} measured")
        elif found.open_ends[1]:
            reasons.append(
                f"{objective.statistic} has no upper bound from {found.n} requests (too few)"
            )
        elif found.hi > objective.bound_ms:
            reasons.append(
                f"{objective.statistic} {found.value:.3g} ms (up to {found.hi:.3g}) is not "
                f"confidently under {objective.bound_ms:g} ms"
            )
    return tuple(reasons)


def knee(curve: Sequence[Point]) -> float | None:
    """KNEE_FACTOR's knee over the runs that kept up, by rate; None without two of them."""
    kept = sorted(
        (p for p in curve if not p.figures.is_saturated and "p99" in p.figures.latency),
        key=lambda p: p.rate,
    )
    if len(kept) < 2:
        return None
    base = kept[0].figures.latency["p99"].value
    found = kept[0].rate
    for point in kept[1:]:
        if point.figures.latency["p99"].value > KNEE_FACTOR * base:
            break
        found = point.rate
    return found


def search_capacity(
    measure: Measure,
    objectives: Sequence[Objective],
    plan: SearchPlan,
    clock: Callable[[], float],
    cancelled: Callable[[], bool] = lambda: False,
    on_point: Callable[[Point], None] = lambda _point: None,
) -> Capacity:
    """The capacity under `objectives` from runs of `measure`, each handed to `on_point` as
    it is judged (a live curve); a run the person cancelled stops the search and is left
    out of it."""
    began = clock()
    curve: list[Point] = []
    lo: float | None = None  # the highest rate that met
    hi: float | None = None  # the lowest rate above lo that did not
    confirmed = False
    stopped: str | None = None

    def window(rate: float, confirming: bool) -> float:
        base = plan.confirm_s if confirming else plan.window_s
        return max(base, plan.min_requests / rate)

    while True:
        confirming = False
        if lo is None and hi is None:
            rate, stage = plan.start_rate, "bracketing"
        elif hi is None:
            assert lo is not None
            rate, stage = lo * 2.0, "bracketing"
        elif lo is None:
            rate, stage = hi / 2.0, "bracketing"
        elif hi / lo > 1.0 + plan.resolution:
            rate, stage = math.sqrt(lo * hi), "bisecting"
        elif not confirmed:
            rate, stage, confirming = lo, "confirming", True
        else:
            break
        rate = round_rate(rate)
        if rate > plan.max_rate:
            stopped = f"every rate up to {plan.max_rate:g} requests/s met the objectives"
            break
        if rate < plan.min_rate:
            stopped = f"no rate down to {plan.min_rate:g} requests/s met the objectives"
            break
        span = window(rate, confirming)
        if clock() - began + span * (1.0 + DRAIN_SHARE) > plan.budget_s:
            stopped = f"the budget of {plan.budget_s:g} s ran out while {stage}"
            break
        figures = measure(rate, span)
        if cancelled():
            stopped = f"cancelled while {stage}"
            break
        reasons = judge(figures, objectives)
        curve.append(Point(rate, span, figures, not reasons, reasons, confirming))
        on_point(curve[-1])
        if confirming:
            if not reasons:
                confirmed = True
                continue
            hi = rate  # refuted: the next lower rate that met, if any, is the candidate
            met = [p.rate for p in curve if p.meets and p.rate < rate]
            lo = max(met) if met else None
        elif not reasons:
            lo = rate if lo is None else max(lo, rate)
        else:
            hi = rate if hi is None else min(hi, rate)
    return Capacity(
        objectives=tuple(objectives),
        rate=lo,
        hi=hi,
        confirmed=confirmed,
        curve=tuple(curve),
        knee=knee(curve),
        stopped=stopped,
        elapsed_s=clock() - began,
    )
