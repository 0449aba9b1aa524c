"""Open-loop traffic on a prepared model: a run at a rate (and its record as the worker keeps
a closed-loop run's), and the capacity search over such runs. What a worker calls once the
model is compiled and its inputs bound."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from perftui.bench.open_loop import run_open_loop
from perftui.bench.recorder import Measurement
from perftui.domain.measurement.uncertainty import window_rates
from perftui.domain.traffic.arrivals import arrival_times
from perftui.domain.traffic.capacity import (
    DRAIN_SHARE,
    Capacity,
    Point,
    SearchPlan,
    search_capacity,
)
from perftui.domain.traffic.figures import TrafficFigures, traffic_figures
from perftui.domain.traffic.objective import Objective
from perftui.domain.traffic.timeline import Timeline

WARMUP_PER_SLOT = 2
"""Untimed requests on each slot before its first timed one (a fresh infer request allocates
on its first inference)."""


class Servable(Protocol):
    """What an open-loop run needs of a prepared model (perftui.engines.base.Prepared)."""

    @property
    def resolved(self) -> Mapping[str, Any]: ...

    def slots(self, n: int) -> list[Callable[[], object]]: ...


class TrafficRun:
    """A prepared model's slots (one for the sync API, `requests` for async), warmed up
    once, and open-loop runs on them. Run k draws its arrivals with seed + k: the same seed
    gives the same runs, and a search's runs do not share one draw (runs of equal length in
    requests would otherwise all be offered the same share more or less than their rate)."""

    def __init__(self, prepared: Servable, *, arrival: str, seed: int) -> None:
        self._slots = prepared.slots(int(prepared.resolved.get("requests") or 1))
        for slot in self._slots:
            for _ in range(WARMUP_PER_SLOT):
                slot()
        self._arrival = arrival
        self._seeds = itertools.count(seed)

    def timeline(
        self, rate: float, window_s: float, cancelled: Callable[[], bool] = lambda: False
    ) -> Timeline:
        scheduled = arrival_times(self._arrival, rate, window_s, next(self._seeds))
        return run_open_loop(
            self._slots, scheduled, window_s, drain_s=DRAIN_SHARE * window_s, cancelled=cancelled
        )

    def figures(
        self, rate: float, window_s: float, cancelled: Callable[[], bool] = lambda: False
    ) -> TrafficFigures:
        return traffic_figures(self.timeline(rate, window_s, cancelled), rate)

    def capacity(
        self,
        objectives: Sequence[Objective],
        plan: SearchPlan,
        cancelled: Callable[[], bool] = lambda: False,
        on_point: Callable[[Point], None] = lambda _point: None,
    ) -> Capacity:
        def measure(rate: float, window_s: float) -> TrafficFigures:
            return self.figures(rate, window_s, cancelled)

        return search_capacity(measure, objectives, plan, time.monotonic, cancelled, on_point)


def open_loop_measurement(timeline: Timeline, batch: int) -> Measurement:
    """An open-loop run as the worker records a closed-loop one: each completed request's
    latency from its arrival (ms, in the order they completed), the span from the window's
    start to the last result, the items served per second of it and its windows' rates."""
    done = timeline.done
    order = np.argsort(timeline.ended[done], kind="stable")
    ends = timeline.ended[done][order]
    span = timeline.span_s
    return Measurement(
        latencies_ms=timeline.latency[order] * 1000.0,
        duration_s=span,
        throughput_fps=ends.size * batch / span,
        window_fps=window_rates(ends, 0.0, batch),
    )
