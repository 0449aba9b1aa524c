"""Issue 40, item 3 on the dashboard: the compare screen's sweet spot at 80x24 is the best
configuration with its repetitions combined, with its interval, never its luckiest round."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from perftui.tui.app import create_app
from perftui.tui.compare.setup import CompareScreen
from tests.sweet_data import THRESHOLD, store_both
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


async def test_the_sweet_spot_is_a_configuration_combined(tmp_path: Path, services):
    store_both(tmp_path / "db.json")
    app = create_app(tmp_path / "db.json", services)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.store is not None and len(app.screen_stack) > 1)
        app.compare_projects("fp32", "int8")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        screen = app.screen
        screen.query_one("#cmp-threshold", Input).value = f"{THRESHOLD:g}"
        sweet = screen.query_one("#cmp-sweet", Static)
        await wait_for(pilot, lambda: "Sweet spot (median ≤ 10 ms)" in str(sweet.render()))
        text = str(sweet.render())
        spot = screen.comparison.sweet
        screen.query_one("#cmp-runs").focus()
        await pilot.press("r")  # by cost: the same configuration, its cost with its interval
        await wait_for(pilot, lambda: "$/M inf" in str(sweet.render()))
        by_cost = str(sweet.render())
    assert "A fp32 b2 t:auto x5" in by_cost and "0.0505 (0.0504-0.0506) $/M inf" in by_cost
    assert "A fp32 b2 t:auto x5  2,750 ±" in text, text  # combined, with its interval
    assert "5,000" not in text and "2,809" not in text  # no lucky repetition
    assert spot is not None and spot.latency_ms <= THRESHOLD
