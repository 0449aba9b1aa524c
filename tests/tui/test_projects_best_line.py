"""The line under the projects table names the configuration each headline figure is of,
with the same figure the table shows."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


async def test_the_best_line_names_the_configuration_of_the_tables_figures(app) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.screen.query_one("#projects", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0)
        line = app.screen.query_one("#project-best", Static)
        assert "no successful run yet" in str(line.render())  # the first: empty-project
        measured = next(
            n for n in range(table.row_count) if str(table.get_row_at(n)[4]).strip() != "—"
        )
        table.move_cursor(row=measured)
        await wait_for(pilot, lambda: "most items/s at" in str(line.render()))
        text = str(line.render())
        row = [str(cell) for cell in table.get_row_at(measured)]
        fps, ms = row[4], row[6]  # Name Engine Dev Prec items/s V ms (80 columns)
        name = row[0].strip(" *")
        assert text.startswith(f"{name}: most items/s at b")
        assert f": {fps}" in text and f": {ms}" in text
        assert "runs," in text or "1 run," in text
