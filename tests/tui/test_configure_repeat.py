"""The benchmark form's Repeat field: checked as typed, counted in the plan line, passed to the
request and restored from the project's last benchmark."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.widgets import Static

from perftui.tui.benchmark.live import LiveRunScreen
from tests.tui.test_configure import note, open_config, type_into
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


def plan(screen) -> str:
    return str(screen.query_one("#cfg-plan", Static).render())


async def test_repeat_is_checked_counted_and_sent(app, services):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_config(app, pilot)
        assert screen.values()["repeat"] == "1"
        assert "3 or more to compare" in note(screen, "repeat")
        await type_into(pilot, screen, "repeat", "0")
        assert "at least 1" in note(screen, "repeat")
        assert screen.query_one("#e-repeat").has_class("error")
        await type_into(pilot, screen, "repeat", "3")
        assert "4 run(s) x 3 repeats, at least 24 s" in plan(screen)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveRunScreen))
        assert services.validated[0].repeat == 3


async def test_repeat_is_restored_from_the_last_benchmark(app):
    async with app.run_test(size=(100, 30)) as pilot:
        stored = app.store.last_benchmark("net-fp32")
        app.store.add_benchmark(replace(stored.request, repeat=5))
        screen = await open_config(app, pilot)
        assert screen.values()["repeat"] == "5"
        assert "x 5 repeats" in plan(screen)
