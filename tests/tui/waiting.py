"""Waiting in Pilot tests on a condition, not on a fixed pause: the machines are shared."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.worker import WorkerState

DEADLINE_S = 20.0


async def wait_for(pilot, condition: Callable[[], object], seconds: float = DEADLINE_S) -> None:
    """Let the app run until `condition()` holds; fail after `seconds` of wall time."""
    deadline = time.monotonic() + seconds
    while True:
        await pilot.pause(0.02)  # a poll's interval, not a wait for something
        if condition():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen did not get there within {seconds:.0f} s")


async def settled(pilot, seconds: float = DEADLINE_S) -> None:
    """Let the app finish what it has started: no worker pending or running, then its
    messages handled and its scheduled animations and refreshes done (lazy panes mounted,
    charts drawn). Fails after `seconds` of wall time."""
    busy = (WorkerState.PENDING, WorkerState.RUNNING)
    await wait_for(pilot, lambda: not any(w.state in busy for w in pilot.app.workers), seconds)
    await pilot.wait_for_scheduled_animations()
