"""Issue 12, 2: with NO_COLOR the focused widget shows by reverse video, not a grey step."""

from __future__ import annotations

import pytest
from textual.widget import Widget
from textual.widgets import Checkbox, DataTable, Input, Select
from textual.widgets._select import SelectCurrent

from perftui.tui.app import create_app
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.projects.new_project import ModelTree, NewProjectScreen
from tests.tui.snapshot_helpers import settle

pytestmark = pytest.mark.tui


def reversed_(widget: Widget, component: str) -> bool:
    return bool(widget.get_component_styles(component).text_style.reverse)


async def test_focus_shows_without_colour(db, services, monkeypatch, tmp_path):
    monkeypatch.setenv("NO_COLOR", "1")
    app = create_app(db, services)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#projects", DataTable)
        assert table.has_focus
        assert reversed_(table, "datatable--cursor")
        screen = BenchmarkConfigScreen(app.store.get_project("net-fp32"))
        app.push_screen(screen)
        await settle(pilot)
        batch, time = screen.query_one("#f-batch", Input), screen.query_one("#f-time", Input)
        assert batch.has_focus and batch.rich_style.reverse and not time.rich_style.reverse
        profile = screen.query_one("#profile", Checkbox)
        profile.focus()
        await pilot.pause()
        assert profile.rich_style.reverse and not batch.rich_style.reverse
        await pilot.press("escape")
        new = NewProjectScreen(tmp_path)
        app.push_screen(new)
        await settle(pilot)
        engine = new.query_one("#engine", Select)
        assert not engine.query_one(SelectCurrent).rich_style.reverse
        engine.focus()
        await pilot.pause()
        assert engine.query_one(SelectCurrent).rich_style.reverse
        tree = new.query_one(ModelTree)
        tree.focus()
        await pilot.pause()
        assert reversed_(tree, "tree--cursor")
