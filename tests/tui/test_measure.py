"""M on the compare summary: A and B measured again alternately, with scripted clients (no
engines): the rounds' runs land in the table and in the store, the end judges the pairs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perftui.domain.compare import compare_projects
from perftui.domain.forms.bench import MEASURE_ROUNDS, MEASURE_TIME_S
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.store import Store
from perftui.tui.app import create_app
from perftui.tui.kit.tables import RowTable
from perftui.tui.measure.screen import MeasureScreen
from tests.tui.conftest import FakeServices, make_run
from tests.tui.snapshot_helpers import settle
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


def two_benchmarked(path: Path, with_benchmark: bool = True) -> Store:
    store = Store(path)
    for name, fps in (("fp32", 210.0), ("int8", 400.0)):
        project = store.add_project(Project(name, f"/models/{name}.onnx", "onnxruntime"))
        bench = ""
        if with_benchmark or name == "fp32":
            request = BenchmarkRequest(project, (RunConfig(1, 1),), Budget(time_s=2.0))
            bench = store.add_benchmark(request)
        run = make_run(name, 1, 1, fps, 1)
        store.add_run(run.__class__(**{**run.__dict__, "benchmark_id": bench}), np.full(9, 4.0))
    return store


async def measured(tmp_path: Path, with_benchmark: bool = True):
    store = two_benchmarked(tmp_path / "db.json", with_benchmark)
    comparison = compare_projects("fp32", store.runs("fp32"), "int8", store.runs("int8"))
    services = FakeServices(ticks=1)
    app = create_app(tmp_path / "db.json", services)
    async with app.run_test(size=(80, 24)) as pilot:
        app.measure_alternately(comparison)
        screen = app.screen
        assert isinstance(screen, MeasureScreen)
        await wait_for(pilot, lambda: not screen.running, 30)  # a busy machine is slow
        # the notice can land after the screen stops running
        await wait_for(pilot, lambda: bool(app._notifications))
        notes = [n.message for n in app._notifications]
        await settle(pilot)
        status = str(screen.query_one("#measure-status").render())
        rows = screen.query_one("#measure-runs", RowTable).row_count
    return Store(tmp_path / "db.json"), services, status, rows, notes


async def test_both_sides_are_measured_alternately_and_judged_by_pairs(tmp_path: Path):
    store, services, status, rows, notes = await measured(tmp_path)
    assert rows == 2 * MEASURE_ROUNDS
    names = [c.request.project.name for c in services.clients]
    assert names == ["fp32", "int8"]
    for client in services.clients:
        assert client.request.repeat == MEASURE_ROUNDS
        assert client.request.budget.time_s == MEASURE_TIME_S
        assert client.request.label.startswith("alternated ")
    assert len(store.runs("fp32")) == len(store.runs("int8")) == 1 + MEASURE_ROUNDS
    assert f"{MEASURE_ROUNDS} rounds paired" in status
    assert any("throughput" in n or "B is" in n for n in notes)


async def test_a_side_without_benchmark_settings_is_refused_with_nothing_stored(tmp_path: Path):
    store, services, status, rows, notes = await measured(tmp_path, with_benchmark=False)
    assert rows == 0 and not services.clients
    assert "no benchmark settings" in status
    assert any("no benchmark settings" in n for n in notes)
    assert len(store.runs("fp32")) == 1 and len(store.runs("int8")) == 1


async def test_m_on_the_inference_tab_opens_the_measurement(tmp_path: Path):
    """The runs have no layer profile, which hides the layer tabs' keys, not this one."""
    store = two_benchmarked(tmp_path / "db.json")
    comparison = compare_projects("fp32", store.runs("fp32"), "int8", store.runs("int8"))
    app = create_app(tmp_path / "db.json", FakeServices(ticks=1))
    async with app.run_test(size=(80, 24)) as pilot:
        app.compare_summary(comparison)
        await pilot.pause()
        await pilot.press("1", "M")  # on the first tab: not offered
        assert not isinstance(app.screen, MeasureScreen)
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("M")
        await pilot.pause()
        assert isinstance(app.screen, MeasureScreen)
