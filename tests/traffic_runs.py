"""Open-loop runs for tests that judge, show, store or carry them (no engine, no clock): a
single-slot queue replayed exactly on a constant schedule, so a test names its service time
and gets a run that kept up or one that did not."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from perftui.bench.traffic import open_loop_measurement
from perftui.domain.measurement.stats import latency_stats
from perftui.domain.records import RunConfig, RunResult
from perftui.domain.traffic.figures import traffic_figures
from perftui.domain.traffic.timeline import Timeline
from tests.factories import run_result


def replayed(rate: float, service_s: float, window_s: float = 4.0, late_s: float = 0.0) -> Timeline:
    """Arrivals every 1/rate seconds served first come, first served by one slot taking
    `service_s` each (a little more every 7th, so the figures have a spread), each started
    `late_s` after it could have been."""
    scheduled = np.arange(int(window_s * rate)) / rate
    started, ended = np.empty_like(scheduled), np.empty_like(scheduled)
    free = 0.0
    for i, due in enumerate(scheduled):
        started[i] = max(due, free) + late_s
        free = ended[i] = started[i] + service_s * (1.5 if i % 7 == 0 else 1.0)
    return Timeline(scheduled, started, ended, 1, window_s)


def traffic_run(
    rate: float, service_s: float = 0.002, late_s: float = 0.0, **fields: object
) -> tuple[RunResult, np.ndarray]:
    """A finished run at `rate` (as the worker records it) and its latency samples in ms."""
    timeline = replayed(rate, service_s, late_s=late_s)
    measured = open_loop_measurement(timeline, 1)
    run = run_result(
        measured.throughput_fps,
        config=RunConfig(rate=rate),
        status="ok",
        iterations=int(measured.latencies_ms.size),
        duration_s=measured.duration_s,
        latency_ms=latency_stats(measured.latencies_ms),
        window_fps=measured.window_fps,
        traffic=traffic_figures(timeline, rate),
    )
    return replace(run, **fields), measured.latencies_ms  # type: ignore[arg-type]
