"""Issue 26 item 7 in the dashboard: a name stored before the name rule (or by another tool)
is shown in a table as text, never handed to the terminal as an escape sequence."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input

from perftui.store.database import Store
from perftui.tui.kit.dialogs import PromptScreen
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


async def test_rename_takes_the_name_rule_of_the_cli(app, db: Path):
    async with app.run_test() as pilot:
        await pilot.press("down", "r")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one(Input).value = "x\x1b[31mRED"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)  # refused, the reason is shown
        assert "escape" in str(app.screen.query_one("#prompt-error").render())
    assert Store(db).get_project("x\x1b[31mRED") is None
