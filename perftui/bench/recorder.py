"""The timed window's bookkeeping: latencies, stop condition, throughput and progress ticks."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from perftui.domain.measurement.uncertainty import window_rates
from perftui.domain.records import Budget
from perftui.engines.base import Recorder


@dataclass(frozen=True)
class Tick:
    """A progress report from inside the timed window."""

    elapsed_s: float
    iterations: int
    fraction: float
    """Share of the stop condition reached (the slower of time and iterations), 0..1."""
    throughput_fps: float
    """Samples per second completed since the previous tick."""
    latency_ms: float
    """Median latency of the requests completed since the previous tick."""


@dataclass(frozen=True)
class Measurement:
    latencies_ms: np.ndarray
    duration_s: float
    """From the first submit to the last completion."""
    throughput_fps: float
    """Samples (requests x batch) completed per second of `duration_s`."""
    window_fps: tuple[float, ...]
    """Throughput of consecutive windows (perftui.domain.measurement.uncertainty.window_rates)."""


class WindowRecorder(Recorder):
    """Collects completed requests until both the time and the iteration minimum are met.

    `cancelled` is polled from `done()`; `on_tick` is called at most every `tick_s` seconds
    from whichever thread completes a request.
    """

    def __init__(
        self,
        budget: Budget,
        batch: int,
        *,
        on_tick: Callable[[Tick], None] | None = None,
        cancelled: Callable[[], bool] = lambda: False,
        tick_s: float = 0.25,
    ) -> None:
        self._min_time = budget.time_s
        self._min_iterations = budget.iterations
        self._batch = batch
        self._on_tick = on_tick
        self._cancelled = cancelled
        self._tick_s = tick_s
        self._lock = threading.Lock()
        self._latencies: list[float] = []
        self._ends: list[float] = []
        self._start = 0.0
        self._last_end = 0.0
        self._next_tick = 0.0
        self._tick_from = 0
        self._tick_start = 0.0
        self.was_cancelled = False

    def begin(self) -> None:
        self._start = time.perf_counter()
        self._last_end = self._start
        self._tick_start = self._start
        self._next_tick = self._start + self._tick_s

    def record(self, latency_s: float) -> None:
        now = time.perf_counter()
        with self._lock:
            self._latencies.append(latency_s)
            self._ends.append(now)
            self._last_end = now
            if self._on_tick is None or now < self._next_tick:
                return
            tick = self._make_tick(now)
        self._on_tick(tick)

    def _make_tick(self, now: float) -> Tick:
        recent = self._latencies[self._tick_from :]
        window = now - self._tick_start
        count = len(self._latencies)
        elapsed = now - self._start
        fraction = min(
            1.0,
            min(
                elapsed / self._min_time if self._min_time > 0 else 1.0,
                count / self._min_iterations if self._min_iterations > 0 else 1.0,
            ),
        )
        tick = Tick(
            elapsed_s=elapsed,
            iterations=count,
            fraction=fraction,
            throughput_fps=len(recent) * self._batch / window if window > 0 else 0.0,
            latency_ms=float(np.median(recent)) * 1000.0 if recent else 0.0,
        )
        self._tick_from = count
        self._tick_start = now
        self._next_tick = now + self._tick_s
        return tick

    def done(self) -> bool:
        if self._cancelled():
            self.was_cancelled = True
            return True
        # the measured window ends at the last completion, so that is what must be long enough
        return (
            len(self._latencies) >= self._min_iterations
            and self._last_end - self._start >= self._min_time
        )

    @property
    def iterations(self) -> int:
        return len(self._latencies)

    def measurement(self) -> Measurement:
        latencies = np.asarray(self._latencies, dtype=np.float64) * 1000.0
        duration = self._last_end - self._start
        samples = latencies.size * self._batch
        return Measurement(
            latencies_ms=latencies,
            duration_s=duration,
            throughput_fps=samples / duration if duration > 0 else 0.0,
            window_fps=window_rates(self._ends, self._start, self._batch),
        )
