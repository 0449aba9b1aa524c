"""Helpers that make snapshot pictures deterministic."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input


async def settle(
    pilot: Pilot, condition: Callable[[], bool] = lambda: True, tries: int = 1500
) -> None:
    """Wait for `condition` (up to 30 s: a loaded machine takes seconds where an idle one
    takes milliseconds), then for the screen to be still: no notifications, no blinking
    cursor (a blink caught mid-way makes the picture random)."""
    for _ in range(tries):
        await pilot.pause(0.02)
        if condition():
            break
    await pilot.pause(0.1)
    pilot.app.clear_notifications()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()
