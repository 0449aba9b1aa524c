"""Issue 26 item 7 in the dashboard: a name stored before the name rule (or by another tool)
is shown in a table as text, never handed to the terminal as an escape sequence."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from perftui.tui.kit.tables import fill_table


class OneTable(App):
    def compose(self) -> ComposeResult:
        yield DataTable()


async def test_a_table_cell_shows_control_characters_as_escapes():
    app = OneTable()
    async with app.run_test():
        table = app.query_one(DataTable)
        fill_table(table, [("Project", "name")], [("k", ["old\x1b[2Jname\u202e"])])
        cell = str(table.get_row_at(0)[0])
        assert "\x1b" not in cell and "\u202e" not in cell
        assert cell == "old\\x1b[2Jname\\u202e"
