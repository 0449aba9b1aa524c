"""Issue 12, 10 and 11: precision words, the delete note, a cancelled run's throughput, the
device choice while probing, R in the footer, `c` with B the best project, cores and CPU."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.widgets import DataTable, Select, Static

from perftui.store.database import Store
from perftui.tui.compare.setup import CompareScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from perftui.tui.kit.dialogs import ConfirmScreen
from perftui.tui.projects.new_project import NewProjectScreen
from tests.tui.conftest import make_run
from tests.tui.snapshot_helpers import settle
from tests.tui.test_projects import rows
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui


async def test_c_compares_with_the_best_project_as_b(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert rows(app)[0][0].strip() == "empty-project"  # the cursor's project, nothing marked
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert app.screen.state.names() == {"A": "empty-project", "B": "net-int8"}


async def test_precision_words_are_the_same_for_every_project(app, db):
    run = replace(make_run("empty-project", 1, 1, 100.0, 30), resolved={"precision": "f32"})
    Store(db).add_run(run)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#projects", DataTable)
        precisions = [str(table.get_row_at(i)[4]) for i in range(table.row_count)]
        assert precisions == ["FP32", "FP32/I8", "FP32/I8"]


async def test_delete_says_the_model_file_stays(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "The model file stays: /models/net_fp32.xml" in str(
            app.screen.query_one(".dialog-detail", Static).render()
        )


async def test_a_cancelled_run_keeps_its_throughput(app, db):
    Store(db).add_run(replace(make_run("empty-project", 1, 1, 380.1, 30), status="cancelled"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = ProjectDetailScreen("empty-project", tab="runs")
        app.push_screen(screen)
        await settle(pilot, lambda: screen.info is not None)
        table = screen.query_one("#runs", DataTable)
        assert str(table.get_row_at(0)[3]) == "380"  # after When, Config, Verdict


async def test_detail_footer_offers_rerun_all_and_summary_has_cores(app):
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = ProjectDetailScreen("net-fp32", tab="summary")
        app.push_screen(screen)
        await settle(pilot, lambda: screen.info is not None)
        await settled(pilot)
        shown = {b.id for _, b, enabled, _ in screen.active_bindings.values() if b.show}
        assert "rerun_benchmark" in shown
        summary = str(screen.query_one("#summary-text", Static).render())
        assert "Test CPU @ 3.0GHz   4 cores, 8 logical" in summary


async def test_no_device_is_offered_while_probing(app, services, tmp_path):
    services.devices = lambda: (_ for _ in ()).throw(TimeoutError("slow"))  # never answers
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = NewProjectScreen(tmp_path)
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.is_mounted and bool(screen.query("#np-status")))
        device = screen.query_one("#device", Select)
        assert device.disabled and "probing" not in str(device._options)
        assert "Asking the engines" in str(screen.query_one("#np-status", Static).render())
