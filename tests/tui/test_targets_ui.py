"""Targets in the dashboard: the new-project form's Target, the projects table, the compare
summary's Environment tab, and the bench service on a real SSH target (tests/sshd.py)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, Static

from perftui.bench import protocol
from perftui.domain.compare import compare_projects
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.store.database import Store
from perftui.targets.launcher import SshLauncher
from perftui.targets.registry import Target, TargetBook
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.compare.summary import CompareSummaryScreen
from perftui.tui.services import client
from tests.conftest import MOBILENET
from tests.sshd import ALIAS, MISSING, SSHD, sshd
from tests.tui.conftest import ENV, make_run
from tests.tui.test_new_project import models, open_screen, wait_for

pytestmark = pytest.mark.tui
BOX_ENV = {
    **ENV,
    "target": "box",
    "cpu_model": "AMD EPYC 7B13",
    "isa": ["avx2"],
    "openvino": "2024.6",
}


async def test_new_project_form_offers_the_targets(app, db: Path, tmp_path: Path):
    TargetBook(db).add(Target("box", "user@box.example"))
    folder = models(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(app, pilot, folder)
        target = screen.query_one("#target", Select)
        await wait_for(pilot, lambda: len(target._options) > 1)
        assert [value for _, value in target._options] == ["local", "box"]
        assert target.value == "local"
        path = screen.query_one("#path", Input)
        path.value = str(folder / "net_fp32.onnx")
        path.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.info is not None)
        target.value = "box"
        await wait_for(pilot, lambda: screen.devices is not None)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, BenchmarkConfigScreen))
    project = Store(db).get_project("net_fp32-openvino-CPU@box")  # as `bench --target box`
    assert project is not None and project.target == "box"


async def test_projects_table_shows_the_target_after_the_device(app, db: Path):
    Store(db).add_project(Project("net-box", "/models/net_fp32.onnx", "openvino", target="box"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#projects", DataTable)
        rows = {str(row[0]).strip(" *"): [str(c) for c in row] for row in _rows(table)}
    assert "CPU@box" in rows["net-box"]
    assert "CPU" in rows["net-fp32"] and not any("@" in c for c in rows["net-fp32"])


def _rows(table: DataTable) -> list[list[object]]:
    return [table.get_row_at(n) for n in range(table.row_count)]


async def test_compare_summary_puts_the_environments_side_by_side(app):
    local = [make_run("net-local", 1, 1, 100.0, 1)]
    box = [replace(make_run("net-box", 1, 1, 80.0, 2), resolved={"environment": BOX_ENV})]
    comparison = compare_projects("net-local", local, "net-box", box)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(CompareSummaryScreen(comparison, tab="environment"))
        await pilot.pause()
        table = app.screen.query_one("#cmp-env", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0)
        rows = {str(row[1]): (str(row[0]), str(row[2]), str(row[3])) for row in _rows(table)}
        head = str(app.screen.query_one("#env-head", Static).render())
    assert rows["Target"] == ("≠", "local", "box")
    assert rows["CPU"] == ("≠", "Test CPU @ 3.0GHz", "AMD EPYC 7B13")
    assert rows["Vectors"] == ("≠", "AVX-512", "AVX2")
    assert rows["OpenVINO"] == ("≠", "2025.0", "2024.6")
    assert rows["ONNX RT"] == (" ", "1.20.0", "1.20.0")
    assert "different machines" in head


@pytest.mark.skipif(SSHD is None, reason=MISSING)
def test_the_dashboards_bench_service_runs_a_target_project_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    store = Store(tmp_path / "dash.json")
    with sshd(tmp_path / "sshd") as server:
        monkeypatch.setenv("PERFTUI_SSH", server.ssh)
        TargetBook(store.path).add(Target("box", ALIAS, sys.executable))
        project = Project("net@box", str(MOBILENET), "onnxruntime", target="box")
        request = BenchmarkRequest(
            project, (RunConfig(1, 1),), Budget(time_s=0.2, iterations=5, warmup=1)
        )
        bench = client(request, store)
        assert isinstance(getattr(bench, "launcher", None), SshLauncher)
        events = list(bench.events())
    assert isinstance(events[-1], protocol.BenchmarkDone)
    [run] = store.runs("net@box")
    assert run.status == "ok" and run.resolved["environment"]["target"] == "box"
