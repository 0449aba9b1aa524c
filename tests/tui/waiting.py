"""Waiting in Pilot tests on a condition, not on a fixed pause: the machines are shared."""

from __future__ import annotations

import time
from collections.abc import Callable

DEADLINE_S = 20.0


async def wait_for(pilot, condition: Callable[[], object], seconds: float = DEADLINE_S) -> None:
    """Let the app run until `condition()` holds; fail after `seconds` of wall time."""
    deadline = time.monotonic() + seconds
    while True:
        await pilot.pause(0.02)
        if condition():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen did not get there within {seconds:.0f} s")
