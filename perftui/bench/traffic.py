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
from perftui.bench.recorder import Measurement, Tick
from perftui.domain.measurement.uncertainty import window_rates
from perftui.domain.records import Budget, RunConfig
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
        self,
        rate: float,
        window_s: float,
        cancelled: Callable[[], bool] = lambda: False,
        on_tick: Callable[[Timeline, float], None] | None = None,
    ) -> Timeline:
        scheduled = arrival_times(self._arrival, rate, window_s, next(self._seeds))
        return run_open_loop(
            self._slots,
            scheduled,
            window_s,
            drain_s=DRAIN_SHARE * window_s,
            cancelled=cancelled,
            on_tick=on_tick,
        )

    def figures(
        self, rate: float, window_s: float, cancelled: Callable[[], bool] = lambda: False
    ) -> TrafficFigures:
        return traffic_figures(self.timeline(rate, window_s, cancelled), rate)

    def measured(
        self,
        rate: float,
        window_s: float,
        batch: int,
        cancelled: Callable[[], bool],
        on_tick: Callable[[Tick], None] | None = None,
    ) -> tuple[Measurement, TrafficFigures]:
        """A run at `rate` recorded as the worker records a closed-loop run, with its
        traffic figures: the one way a bench run and a capacity search's run are kept."""
        ticks = None if on_tick is None else RateTicks(batch, window_s, on_tick)
        timeline = self.timeline(rate, window_s, cancelled, ticks)
        return open_loop_measurement(timeline, batch), traffic_figures(timeline, rate)

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


class RateTicks:
    """Progress ticks of an open-loop run, from its timeline so far: the requests completed
    since the previous tick, their samples per second and their median latency from
    arrival; the fraction is the window's share elapsed."""

    def __init__(self, batch: int, window_s: float, emit: Callable[[Tick], None]) -> None:
        self._batch, self._window_s, self._emit = batch, window_s, emit
        self._seen: np.ndarray | None = None
        self._at = 0.0

    def __call__(self, so_far: Timeline, elapsed_s: float) -> None:
        done = so_far.done
        new = done if self._seen is None else done & ~self._seen
        latency = (so_far.ended - so_far.scheduled)[new]
        span = elapsed_s - self._at
        self._seen, self._at = done, elapsed_s
        self._emit(
            Tick(
                elapsed_s=elapsed_s,
                iterations=int(done.sum()),
                fraction=min(1.0, elapsed_s / self._window_s),
                throughput_fps=int(new.sum()) * self._batch / span if span > 0 else 0.0,
                latency_ms=float(np.median(latency)) * 1000.0 if latency.size else 0.0,
            )
        )


def measure_at_rate(
    prepared: Servable,
    config: RunConfig,
    budget: Budget,
    seed: int,
    on_tick: Callable[[Tick], None],
    cancelled: Callable[[], bool],
) -> tuple[Measurement, TrafficFigures]:
    """The worker's timed window of a run at `config.rate`: the open loop on the prepared
    model's slots, recorded as a closed-loop run is, with its traffic figures."""
    rate = config.rate
    if rate is None:
        raise ValueError("a run at a rate needs config.rate")
    run = TrafficRun(prepared, arrival=config.arrival, seed=seed)
    return run.measured(rate, budget.window_at(rate), config.batch, cancelled, on_tick)
