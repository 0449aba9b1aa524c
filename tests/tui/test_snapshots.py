"""Snapshots of the main screens at 80x24 and 120x40 (fixed data, no clock in view).

Update after an intended change with: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from perftui.tui.app import create_app
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.benchmark.live import LiveRunScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from perftui.tui.projects.new_project import NewProjectScreen
from tests.tui.snapshot_helpers import settle
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.mark.parametrize("size", SIZES)
def test_projects(snap_compare, app, size):
    assert snap_compare(app, terminal_size=size, run_before=lambda pilot: settle(pilot))


def test_projects_empty(snap_compare, empty_app):
    assert snap_compare(empty_app, run_before=lambda pilot: settle(pilot))


def test_help(snap_compare, app):
    assert snap_compare(app, press=["f1"], run_before=lambda pilot: settle(pilot))


def test_help_project_detail(snap_compare, app):
    """The keys ] and [ (next and previous tab) show as typed."""

    async def before(pilot) -> None:
        await settle(pilot)
        screen = ProjectDetailScreen("net-fp32")
        pilot.app.push_screen(screen)
        await settle(pilot, lambda: screen.info is not None)
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 40), run_before=before)


@pytest.mark.parametrize("tab", ["runs", "summary", "charts", "types", "layers"])
@pytest.mark.parametrize("size", SIZES)
def test_project_detail(snap_compare, app, size, tab):
    async def before(pilot) -> None:
        await settle(pilot)
        screen = ProjectDetailScreen("net-fp32", tab=tab)
        pilot.app.push_screen(screen)
        await settle(pilot, lambda: screen.info is not None)
        await settled(pilot)  # lazy panes mount

    assert snap_compare(app, terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES)
def test_configure(snap_compare, app, size):
    async def before(pilot) -> None:
        await settle(pilot)
        screen = BenchmarkConfigScreen(pilot.app.store.get_project("net-fp32"))
        pilot.app.push_screen(screen)
        await settle(pilot, lambda: screen.info is not None)
        batch = screen.query_one("#f-batch", Input)
        batch.value = "1,x"  # one field in error
        batch.action_end()
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES)
def test_live_run_finished(snap_compare, app, size):
    from perftui.domain.records import BenchmarkRequest, Budget, RunConfig

    async def before(pilot) -> None:
        await settle(pilot)
        project = pilot.app.store.get_project("net-int8")
        configs = (RunConfig(1, 1), RunConfig(1, 2), RunConfig(4, 1), RunConfig(4, 2))
        screen = LiveRunScreen([BenchmarkRequest(project, configs, Budget())], validated=True)
        pilot.app.push_screen(screen)
        await settle(pilot, lambda: not screen.running)

    assert snap_compare(app, terminal_size=size, run_before=before)


def test_new_project(snap_compare, db: Path, services, tmp_path: Path, monkeypatch):
    folder = tmp_path / "work"
    (folder / "models").mkdir(parents=True)
    (folder / "models" / "net_fp32.onnx").write_bytes(b"x")
    (folder / "models" / "net_int8.onnx").write_bytes(b"x")
    monkeypatch.chdir(folder)
    app = create_app(db, services)

    async def before(pilot) -> None:
        await settle(pilot)
        screen = NewProjectScreen()
        pilot.app.push_screen(screen)
        await settle(pilot, lambda: screen.devices is not None)
        path = screen.query_one("#path")
        path.value = "models/net_fp32.onnx"
        path.focus()
        await pilot.press("enter")
        await settle(pilot, lambda: screen.info is not None)

    assert snap_compare(app, run_before=before)
