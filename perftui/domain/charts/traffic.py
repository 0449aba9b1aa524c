"""Latency against offered rate: the open-loop runs (RunResult.traffic) of a project or of a
benchmark in progress as curves, one per configuration but the rate (the same settings at
several rates), each point a rate's newest successful run with its intervals and why its
latencies are not the engine's at that rate (saturated, schedule not kept). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from perftui.domain.labels import config_labels
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.records import RunConfig, RunResult
from perftui.domain.settings import key as config_key
from perftui.domain.traffic.objective import Objective

WITHOUT_RATE = ("rate",)
"""What a traffic curve runs along: every other setting is the curve's."""


@dataclass(frozen=True)
class TrafficPoint:
    """One rate of a curve: requests per second, latencies from arrival in ms."""

    run: RunResult
    offered: float
    """The rate the schedule offered (requests/s): the x of the point."""
    achieved: float
    achieved_ci: Interval | None
    p50: Interval | None
    p99: Interval | None
    queue_ms: float | None
    """The median time from arrival to start."""
    lateness_ms: float
    """The scheduler's lateness p99."""
    reasons: tuple[str, ...]
    """Why the latencies are not the engine's at this rate; empty when they are."""
    saturated: bool

    @property
    def rate(self) -> float:
        """The rate asked for (the configuration's)."""
        return self.run.config.rate or 0.0


@dataclass(frozen=True)
class TrafficCurve:
    config: RunConfig
    """The settings the points share (the rate set aside)."""
    label: str
    """What tells this curve from the others ('' when it is the only one)."""
    points: tuple[TrafficPoint, ...]
    """By offered rate, ascending."""

    @property
    def settings(self) -> str:
        """Every setting the points share, the rate set aside ('b1 t:auto sync')."""
        parts = self.points[0].run.config.parts()
        return " ".join(text for name, text, quiet in parts if not quiet and name != "rate")


def traffic_point(run: RunResult) -> TrafficPoint | None:
    """A finished open-loop run as a point; None for a closed-loop or unsuccessful run."""
    t = run.traffic
    if t is None or run.status != "ok" or run.config.rate is None:
        return None
    return TrafficPoint(
        run=run,
        offered=t.offered_rate,
        achieved=t.achieved_rate,
        achieved_ci=t.achieved,
        p50=t.latency.get("median"),
        p99=t.latency.get("p99"),
        queue_ms=t.queue_median_ms,
        lateness_ms=t.lateness_p99_ms,
        reasons=t.reasons,
        saturated=t.is_saturated,
    )


def traffic_curves(runs: Sequence[RunResult]) -> list[TrafficCurve]:
    """A curve per configuration but the rate, in the order they were first measured, each
    point its rate's newest run (by start time; the later one given where they tie)."""
    newest: dict[RunConfig, dict[float, TrafficPoint]] = {}
    for run in sorted(runs, key=lambda r: r.started_at):
        point = traffic_point(run)
        if point is None:
            continue
        at = newest.setdefault(config_key(run.config, without=WITHOUT_RATE), {})
        old = at.get(point.rate)
        if old is None or run.started_at >= old.run.started_at:
            at[point.rate] = point
    configs = list(newest)
    # labelled at one rate for all, so the rate is no difference and the arrival (a word a
    # closed loop's label leaves out) still is one
    labels = (
        config_labels([replace(c, rate=1.0) for c in configs]).labels
        if len(configs) > 1
        else ("",) * len(configs)
    )
    return [
        TrafficCurve(config, label, tuple(sorted(newest[config].values(), key=lambda p: p.offered)))
        for config, label in zip(configs, labels, strict=True)
    ]


def has_rates(configs: Sequence[RunConfig]) -> bool:
    """Whether any of these configurations runs at a rate (an open loop)."""
    return any(config.rate is not None for config in configs)


def curve_of(curves: Sequence[TrafficCurve], config: RunConfig) -> int | None:
    """Which of `curves` holds `config`'s runs at a rate (a capacity search's), if any."""
    wanted = config_key(config, without=WITHOUT_RATE)
    return next((n for n, curve in enumerate(curves) if curve.config == wanted), None)


DRAWN = ("p99", "median")
"""The statistics a traffic chart draws (p99, p50), in the order its objective line takes them."""


def drawn_bound(objectives: Sequence[Objective]) -> float | None:
    """The bound a traffic chart draws across: its objective on p99, else on the median;
    None where the objectives are on a statistic it does not draw (p90)."""
    bounds = {o.statistic: o.bound_ms for o in objectives}
    return next((bounds[name] for name in DRAWN if name in bounds), None)
