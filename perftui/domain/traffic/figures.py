"""An open-loop run's figures: offered and achieved rate, latency from arrival with its
intervals, queue and service apart, the scheduler's lateness, and whether the engine kept
up (saturated) and the scheduler kept its schedule.

The intervals are domain.measurement.uncertainty's: batch means for the achieved rate, order
statistics for the percentiles. The percentile intervals assume exchangeable samples; in an
open loop neighbouring requests share a queue, so near saturation they are narrower than the
truth, and a run whose queue grows is marked saturated rather than trusted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perftui.domain.measurement.figures import PERCENTILES
from perftui.domain.measurement.uncertainty import (
    Z_95,
    Interval,
    quantile_interval,
    throughput_interval,
    window_rates,
)

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.traffic.timeline import Timeline

LATENESS_LIMIT_MS = 1.0
"""The scheduler's lateness p99 past which its schedule was not kept: the latencies then hold
the scheduler's delay too, and the run says so instead of presenting them as the engine's."""
NOT_KEPT = "schedule not kept"
SLICES = 10
"""Equal spans of the window that the queue's trend is read over (batch means of queue time)."""
GROWTH_MIN = 2.0
"""A trend of the queue counts as growth when it adds at least this many times the larger of
the median service time and the mean wait a queue at this rate settles at (besides being
beyond the slices' noise): a run starts with an empty queue, which rises to that wait
whether or not the engine keeps up, slowly near capacity (seconds at 90 % busy)."""
BUSY_SATURATED = 0.97
"""The share of the run its slots were busy from which the engine is at its capacity: a queue
that busy waits about 16 service times on average (M/D/1) and wanders far above that within a
window of seconds, whether or not one window's trend shows it."""
SHORTFALL_MIN = 0.02
"""The achieved rate falls short of the offered one when its whole interval is this share or
more below it."""


@dataclass(frozen=True)
class TrafficFigures:
    """Rates in requests per second (a request is one batch), times in milliseconds."""

    rate: float
    """The rate asked for."""
    offered_rate: float
    """Arrivals scheduled in the window / the window (a Poisson schedule's own rate)."""
    achieved_rate: float
    """Completed requests / the time from the window's start to the last result (at least
    the window)."""
    achieved: Interval | None
    latency: dict[str, Interval]
    """Arrival to result, by statistic name (median, p90, p99)."""
    queue_median_ms: float | None
    service_median_ms: float | None
    """None where no request completed."""
    lateness_p99_ms: float
    busy: float
    """The share of the run (to its last result) the slots spent serving: the utilisation."""
    requests: int
    completed: int
    saturated: tuple[str, ...]
    """Why the engine did not keep up (the queue grew, the rate fell short, requests were
    never served); empty when it did."""
    window_s: float

    @property
    def is_saturated(self) -> bool:
        return bool(self.saturated)

    @property
    def schedule_kept(self) -> bool:
        return self.lateness_p99_ms <= LATENESS_LIMIT_MS

    @property
    def reasons(self) -> tuple[str, ...]:
        """Everything that keeps the latencies from being the engine's at this rate."""
        if self.schedule_kept:
            return self.saturated
        late = (
            f"{NOT_KEPT}: the scheduler issued requests up to {self.lateness_p99_ms:.2g}"
            f" ms late (p99, limit {LATENESS_LIMIT_MS:g} ms); the latencies include its delay"
        )
        return (*self.saturated, late)

    def to_dict(self) -> dict[str, object]:
        return {
            "rate": self.rate,
            "offered_rate": self.offered_rate,
            "achieved_rate": self.achieved_rate,
            "achieved_ci": self.achieved.as_list() if self.achieved else None,
            "latency_ms": {name: found.value for name, found in self.latency.items()},
            "latency_ci_ms": {name: found.as_list() for name, found in self.latency.items()},
            "queue_median_ms": self.queue_median_ms,
            "service_median_ms": self.service_median_ms,
            "lateness_p99_ms": self.lateness_p99_ms,
            "busy": self.busy,
            "requests": self.requests,
            "completed": self.completed,
            "saturated": self.is_saturated,
            "schedule_kept": self.schedule_kept,
            "reasons": list(self.reasons),
            "window_s": self.window_s,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrafficFigures:
        """What `to_dict` wrote (stored, sent by a worker, imported after the schema's check):
        an interval's open end (None) reads as its figure, marked open."""

        def interval(value: float, ends: Sequence[float | None] | None, n: int) -> Interval:
            lo, hi = ends or (None, None)
            return Interval(
                value,
                value if lo is None else float(lo),
                value if hi is None else float(hi),
                n,
                (lo is None, hi is None),
            )

        completed = int(data.get("completed", 0))
        cis = data.get("latency_ci_ms") or {}
        achieved = float(data["achieved_rate"])
        saturated = data.get("reasons") or () if data.get("saturated") else ()
        return cls(
            rate=float(data["rate"]),
            offered_rate=float(data["offered_rate"]),
            achieved_rate=achieved,
            achieved=interval(achieved, data["achieved_ci"], completed)
            if data.get("achieved_ci")
            else None,
            latency={
                name: interval(float(value), cis.get(name), completed)
                for name, value in (data.get("latency_ms") or {}).items()
            },
            queue_median_ms=_number(data.get("queue_median_ms")),
            service_median_ms=_number(data.get("service_median_ms")),
            lateness_p99_ms=float(data.get("lateness_p99_ms", 0.0)),
            busy=float(data.get("busy", 0.0)),
            requests=int(data.get("requests", 0)),
            completed=completed,
            saturated=tuple(str(r) for r in saturated if not str(r).startswith(NOT_KEPT)),
            window_s=float(data.get("window_s", 0.0)),
        )


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def traffic_figures(timeline: Timeline, rate: float) -> TrafficFigures:
    import numpy as np

    from perftui.domain.measurement.stats import nearest_rank

    requests = int(timeline.scheduled.size)
    done = timeline.done
    completed = int(done.sum())
    latency_ms = np.sort(timeline.latency) * 1000.0
    latency = {}
    for name, percentile in PERCENTILES.items():
        found = quantile_interval(latency_ms, percentile, presorted=True)
        if found is not None:
            latency[name] = found
    ends = np.sort(timeline.ended[done])
    span = timeline.span_s
    achieved_rate = completed / span
    achieved = throughput_interval(achieved_rate, window_rates(ends, 0.0, 1))
    offered = requests / timeline.window_s
    service_ms = _median_ms(timeline.service)
    busy = float(timeline.service.sum()) / (timeline.slots * span)
    lateness = np.sort(timeline.lateness())
    saturated = (
        _unserved(requests, completed)
        + _busy(busy)
        + _queue_growth(timeline, max(service_ms or 0.0, _settled_wait_ms(timeline, offered)))
        + _shortfall(offered, achieved)
    )
    return TrafficFigures(
        rate=rate,
        offered_rate=offered,
        achieved_rate=achieved_rate,
        achieved=achieved,
        latency=latency,
        queue_median_ms=_median_ms(timeline.queue),
        service_median_ms=service_ms,
        lateness_p99_ms=nearest_rank(lateness, 99) * 1000.0 if lateness.size else 0.0,
        busy=busy,
        requests=requests,
        completed=completed,
        saturated=saturated,
        window_s=timeline.window_s,
    )


def _median_ms(seconds: np.ndarray) -> float | None:
    import numpy as np

    from perftui.domain.measurement.stats import nearest_rank

    return nearest_rank(np.sort(seconds), 50) * 1000.0 if seconds.size else None


def _unserved(requests: int, completed: int) -> tuple[str, ...]:
    if completed == requests:
        return ()
    return (f"{requests - completed} of {requests} requests were never served",)


def _busy(busy: float) -> tuple[str, ...]:
    if busy < BUSY_SATURATED:
        return ()
    return (f"the engine was busy {busy:.0%} of the run: at its capacity",)


def _settled_wait_ms(timeline: Timeline, offered: float) -> float:
    """The mean wait of a queue that kept up at this rate (Pollaczek-Khinchine, M/G/1: each
    slot taken as a queue of its own fed its share of the arrivals, which waits longer than
    slots sharing one queue do); 0 where the slots cannot keep up (busy beyond 1)."""
    import numpy as np

    service = timeline.service
    if not service.size:
        return 0.0
    per_slot = offered / timeline.slots
    busy = per_slot * float(service.mean())
    if busy >= 1.0:
        return 0.0
    return per_slot * float(np.mean(service**2)) / (2.0 * (1.0 - busy)) * 1000.0


def _queue_growth(timeline: Timeline, floor_ms: float) -> tuple[str, ...]:
    """The queue grew through the window: the slices' mean queue times rise with time beyond
    chance (a Mann-Kendall test at 95 %: ranks, so one slice held up by a hiccup of the
    machine does not make a trend) and the trend (Sen's slope: the median of the slopes
    between slices) adds at least GROWTH_MIN times `floor_ms` over the window."""
    import numpy as np

    done = timeline.done
    arrivals, queue = timeline.scheduled[done], timeline.queue
    slice_of = np.minimum((arrivals / timeline.window_s * SLICES).astype(int), SLICES - 1)
    centres, means = [], []
    for index in range(SLICES):
        members = queue[slice_of == index]
        if members.size:
            centres.append((index + 0.5) * timeline.window_s / SLICES)
            means.append(float(members.mean()))
    n = len(means)
    if n < 4:
        return ()
    x, y = np.asarray(centres), np.asarray(means)
    i, j = np.triu_indices(n, k=1)
    score = float(np.sign(y[j] - y[i]).sum())
    z = (score - 1.0) / math.sqrt(n * (n - 1) * (2 * n + 5) / 18.0)
    growth_ms = float(np.median((y[j] - y[i]) / (x[j] - x[i]))) * timeline.window_s * 1000.0
    if z > Z_95 and growth_ms >= GROWTH_MIN * floor_ms:
        return (f"the queue grew through the window: waiting rose {growth_ms:.3g} ms",)
    return ()


def _shortfall(offered: float, achieved: Interval | None) -> tuple[str, ...]:
    if achieved is None or achieved.hi >= offered * (1.0 - SHORTFALL_MIN):
        return ()
    return (
        f"served {achieved.value:.4g} requests/s ({achieved.lo:.4g}-{achieved.hi:.4g}) of the "
        f"{offered:.4g} offered",
    )
