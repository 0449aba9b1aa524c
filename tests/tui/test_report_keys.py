"""Share what you see: e writes the report of the detail or compare screen (Markdown and
HTML) into the folder the person accepts (the data folder's reports/ is offered, not the
folder the dashboard started in: issue 25, item 9), and says where; F2 saves the screen as
SVG in the data folder's screens/."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from perftui.tui.compare.setup import CompareScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from tests.tui.snapshot_helpers import settle

pytestmark = pytest.mark.tui


def said(app) -> str:
    return " ".join(str(n.message) for n in app._notifications)


async def accept_folder(pilot, folder: Path | None = None) -> str:
    """Accept the folder the report prompt offers (or type `folder`); what it offered."""
    await settle(pilot, lambda: bool(pilot.app.screen.query("#prompt-input")))
    field = pilot.app.screen.query_one("#prompt-input", Input)
    offered = field.value
    if folder is not None:
        field.value = str(folder)
    await pilot.press("enter")
    await pilot.pause()
    return offered


async def test_report_and_screen_picture_from_the_dashboard(app, tmp_path: Path, monkeypatch):
    started = tmp_path / "started-here"
    started.mkdir()
    monkeypatch.chdir(started)
    reports = tmp_path / "reports"  # beside the database (tmp_path / "tui.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        detail = ProjectDetailScreen("net-fp32")
        app.push_screen(detail)
        await settle(pilot, lambda: detail.info is not None)
        await pilot.press("e")
        assert await accept_folder(pilot) == str(reports)
        md = reports / "perftui-report-net-fp32.md"
        assert md.is_file() and (reports / "perftui-report-net-fp32.html").is_file()
        assert "perftui-report-net-fp32\n.md (Markdown), .html (HTML)" in said(app)
        assert "| Config | Settings |" in md.read_text()
        app.clear_notifications()
        compare = CompareScreen("net-fp32", "net-int8")
        app.push_screen(compare)
        await settle(pilot)
        await pilot.press("e")
        await accept_folder(pilot)
        html = reports / "perftui-report-net-fp32-vs-net-int8.html"
        assert html.is_file() and "<svg" in html.read_text()
        assert "perftui-report-net-fp32-vs-net-int8\n.md (Markdown)" in said(app)
        await pilot.press("f2")
        await pilot.pause()
        pictures = list((tmp_path / "screens").glob("*.svg"))
        assert len(pictures) == 1 and pictures[0].name in said(app)
        assert not list(started.iterdir())  # nothing lands where the dashboard started


async def test_where_the_report_went_reads_at_80_columns(app, tmp_path: Path, monkeypatch):
    """Issue 12: the toast gave the whole path on one line, which a toast at 80 columns
    (37 cells of text) folded anywhere. Now: the folder on a line of its own, from the home
    and cut in the middle with its last folder kept, then the file names whole."""
    monkeypatch.setenv("HOME", str(tmp_path))
    deep = tmp_path / "a-rather-long-folder-name" / "and-another-one-below-it" / "reports-2025"
    deep.mkdir(parents=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        compare = CompareScreen("net-fp32", "net-int8")
        app.push_screen(compare)
        await settle(pilot)
        await pilot.press("e")
        await accept_folder(pilot, deep)
        (toast,) = [n for n in app._notifications if n.title == "Report written"]
        lines = toast.message.splitlines()
        assert lines[0].startswith("in ~/a-") and lines[0].endswith("/reports-2025:")
        assert lines[1:] == ["perftui-report-net-fp32-vs-net-int8", ".md (Markdown), .html (HTML)"]
        assert all(len(line) <= 37 for line in lines), lines
        assert (deep / "perftui-report-net-fp32-vs-net-int8.html").is_file()
