"""Issue 12, 3: Home and End move the row cursor of the Projects, Runs and Compare tables."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from perftui.tui.compare.setup import CompareScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from tests.tui.snapshot_helpers import settle

pytestmark = pytest.mark.tui


async def home_end(pilot, table: DataTable) -> None:
    table.focus()
    await pilot.pause()
    assert table.row_count > 2
    await pilot.press("end")
    assert table.cursor_row == table.row_count - 1
    await pilot.press("home")
    assert table.cursor_row == 0


async def test_home_and_end_move_the_row_cursor(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await home_end(pilot, app.screen.query_one("#projects", DataTable))
        detail = ProjectDetailScreen("net-fp32", tab="runs")
        app.push_screen(detail)
        await settle(pilot, lambda: detail.info is not None)
        await home_end(pilot, detail.query_one("#runs", DataTable))
        compare = CompareScreen("net-fp32", "net-int8")
        app.push_screen(compare)
        await settle(pilot)
        await home_end(pilot, compare.query_one("#cmp-runs", DataTable))
