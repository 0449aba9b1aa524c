"""What an open-loop run recorded of each request: when it was due, when it started, when
it ended; and the times derived from them (latency from arrival, queue, service, and the
scheduler's own lateness)."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Timeline:
    """Per request, in arrival order, in seconds from the window's start: `scheduled` (its
    arrival), `started` (when a slot began it) and `ended` (its result); NaN for a request
    never started (the run was cancelled or its drain limit passed)."""

    scheduled: np.ndarray
    started: np.ndarray
    ended: np.ndarray
    slots: int
    """Requests that could be in flight at once (1 for the sync API)."""
    window_s: float
    """The span arrivals were scheduled in."""

    @property
    def done(self) -> np.ndarray:
        """Which requests have a result."""
        return ~np.isnan(self.ended)

    @property
    def span_s(self) -> float:
        """From the window's start to its last result, at least the window."""
        done = self.done
        return max(self.window_s, float(self.ended[done].max())) if done.any() else self.window_s

    @property
    def latency(self) -> np.ndarray:
        """Arrival to result, queueing included, of the completed requests."""
        return (self.ended - self.scheduled)[self.done]

    @property
    def queue(self) -> np.ndarray:
        """Arrival to start, of the completed requests."""
        return (self.started - self.scheduled)[self.done]

    @property
    def service(self) -> np.ndarray:
        """Start to result, of the completed requests."""
        return (self.ended - self.started)[self.done]

    def lateness(self) -> np.ndarray:
        """How late each started request was issued: its start minus the earliest time it
        could have started, max(its arrival, the time a slot freed for it). Requests are
        issued first come, first served, so the k-th waits for the earliest slot freed by
        the requests before it; the slots' free times are replayed from the recorded ends.
        The scheduler's own error, not the engine's."""
        started = ~np.isnan(self.started)
        free = [float("-inf")] * self.slots
        could = np.empty(int(started.sum()))
        ended = np.where(np.isnan(self.ended), np.inf, self.ended)
        for k, (due, end) in enumerate(zip(self.scheduled[started], ended[started], strict=True)):
            could[k] = max(float(due), heapq.heappop(free))
            heapq.heappush(free, float(end))
        return np.maximum(self.started[started] - could, 0.0)
