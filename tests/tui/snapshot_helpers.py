"""Helpers that make snapshot pictures deterministic."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input

from tests.tui.waiting import wait_for


async def settle(
    pilot: Pilot, condition: Callable[[], bool] = lambda: True, seconds: float = 30.0
) -> None:
    """Wait for `condition` (up to 30 s: a loaded machine takes seconds where an idle one
    takes milliseconds), then for the screen to be still: no notifications, no blinking
    cursor (a blink caught mid-way makes the picture random)."""
    await wait_for(pilot, condition, seconds)
    await pilot.wait_for_scheduled_animations()
    pilot.app.clear_notifications()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()
