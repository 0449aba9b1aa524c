"""Share what you see: e writes the report of the detail or compare screen (Markdown and
HTML, and says where), F2 saves the screen as SVG."""

from __future__ import annotations

from pathlib import Path

import pytest

from perftui.tui.compare.setup import CompareScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from tests.tui.snapshot_helpers import settle

pytestmark = pytest.mark.tui


def said(app) -> str:
    return " ".join(str(n.message) for n in app._notifications)


async def test_report_and_screen_picture_from_the_dashboard(app, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        detail = ProjectDetailScreen("net-fp32")
        app.push_screen(detail)
        await settle(pilot, lambda: detail.info is not None)
        await pilot.press("e")
        await pilot.pause()
        md = tmp_path / "perftui-report-net-fp32.md"
        assert md.is_file() and (tmp_path / "perftui-report-net-fp32.html").is_file()
        assert "perftui-report-net-fp32\n.md (Markdown), .html (HTML)" in said(app)
        assert "| Config | Settings |" in md.read_text()
        app.clear_notifications()
        compare = CompareScreen("net-fp32", "net-int8")
        app.push_screen(compare)
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        html = tmp_path / "perftui-report-net-fp32-vs-net-int8.html"
        assert html.is_file() and "<svg" in html.read_text()
        assert "perftui-report-net-fp32-vs-net-int8\n.md (Markdown)" in said(app)
        await pilot.press("f2")
        await pilot.pause()
        pictures = list(tmp_path.glob("*.svg"))
        assert len(pictures) == 1 and pictures[0].name in said(app)


async def test_where_the_report_went_reads_at_80_columns(app, tmp_path: Path, monkeypatch):
    """Issue 12: the toast gave the whole path on one line, which a toast at 80 columns
    (37 cells of text) folded anywhere. Now: the folder on a line of its own, from the home
    and cut in the middle with its last folder kept, then the file names whole."""
    monkeypatch.setenv("HOME", str(tmp_path))
    deep = tmp_path / "a-rather-long-folder-name" / "and-another-one-below-it" / "reports-2025"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        compare = CompareScreen("net-fp32", "net-int8")
        app.push_screen(compare)
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        (toast,) = [n for n in app._notifications if n.title == "Report written"]
        lines = toast.message.splitlines()
        assert lines[0].startswith("in ~/a-") and lines[0].endswith("/reports-2025:")
        assert lines[1:] == ["perftui-report-net-fp32-vs-net-int8", ".md (Markdown), .html (HTML)"]
        assert all(len(line) <= 37 for line in lines), lines
        assert (deep / "perftui-report-net-fp32-vs-net-int8.html").is_file()
