"""The open-loop runner: issues each request at its scheduled arrival whatever the engine
is doing, on any engine's slots (`Prepared.slots`).

One thread per slot. A free slot takes the next request in arrival order (first come, first
served: the requests that arrived while every slot was busy wait in that order), waits for
its arrival if it is still to come, runs it and records when it started and ended. Waiting
sleeps until SPIN_S before the arrival and spins the rest; the slots run with the GIL
released, so a thread waiting for an arrival is not held up by the ones in flight. How late
each request was issued is measured, not assumed (Timeline.lateness): an engine whose own
threads take every core delays the scheduler's wake-ups, and the run then says so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

import numpy as np

from perftui.domain.traffic.timeline import Timeline
from perftui.threads import Parallel

SPIN_S = 0.0003
"""The last part of a wait that is spun rather than slept: a sleep overshoots by 0.11 ms
(p50; 0.15 ms p99) here, and spinning longer made requests later under load, not earlier
(benchmarks/README.md, open_loop.py)."""
POLL_S = 0.05
"""The longest sleep between two looks at the cancel flag."""
LEAD_S = 0.02
"""Time given to the slots' threads to start before the window opens."""
TICK_S = 0.25
"""How often `on_tick` sees the run so far (the calling thread, idle otherwise, looks)."""

Slot = Callable[[], object]
"""Runs one request synchronously (perftui.engines.base.Prepared.slots)."""


def run_open_loop(
    slots: Sequence[Slot],
    scheduled: np.ndarray,
    window_s: float,
    *,
    drain_s: float,
    cancelled: Callable[[], bool] = lambda: False,
    on_tick: Callable[[Timeline, float], None] | None = None,
) -> Timeline:
    """Run the requests due at `scheduled` (seconds from the window's start, ascending) on
    `slots`. A request not started `drain_s` after the window closed is left unserved (the
    engine did not keep up; its queue would only grow). Every TICK_S `on_tick` gets a copy
    of the timeline so far and the seconds since the window opened. Raises what a slot
    raised."""
    if not slots:
        raise ValueError("an open-loop run needs at least one slot")
    count = int(scheduled.size)
    started = np.full(count, np.nan)
    ended = np.full(count, np.nan)
    claim = iter(range(count))
    lock = threading.Lock()
    clock = time.perf_counter
    origin = clock() + LEAD_S
    deadline = origin + window_s + drain_s

    def wait_until(due: float) -> bool:
        """Wait until `due`; False if cancelled (or another slot failed) meanwhile."""
        while (remaining := due - clock()) > SPIN_S:
            if cancelled() or served.failed:
                return False
            time.sleep(min(remaining - SPIN_S, POLL_S))
        while clock() < due:
            pass
        return True

    def serve(slot: Slot) -> None:
        while not served.failed and not cancelled():
            with lock:
                index = next(claim, None)
            if index is None or clock() > deadline:
                return
            if not wait_until(origin + float(scheduled[index])):
                return
            start = clock()
            slot()
            ended[index] = clock() - origin
            started[index] = start - origin

    def tick() -> None:
        if on_tick is not None and clock() > origin:
            so_far = Timeline(scheduled, started.copy(), ended.copy(), len(slots), window_s)
            on_tick(so_far, clock() - origin)

    served = Parallel(serve, "perftui-open-loop")
    served.run(slots, None if on_tick is None else tick, TICK_S)
    return Timeline(scheduled, started, ended, len(slots), window_s)
