"""Project detail: summary, runs (re-run, remove), charts, layer profile and FLOPs."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static, TabbedContent

from perftui.tui.benchmark.live import LiveRunScreen
from perftui.tui.detail.charts import BarChart, ScalingChart
from perftui.tui.detail.screen import ProjectDetailScreen
from perftui.tui.kit.dialogs import ConfirmScreen
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui


async def open_detail(app, pilot, name: str = "net-fp32") -> ProjectDetailScreen:
    await pilot.pause()
    screen = ProjectDetailScreen(name)
    app.push_screen(screen)
    await wait_for(pilot, lambda: screen.info is not None or screen.state.info_error is not None)
    return screen


def cells(screen, table_id: str) -> list[list[str]]:
    table = screen.query_one(f"#{table_id}", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def text(screen, widget_id: str) -> str:
    return str(screen.query_one(f"#{widget_id}", Static).render())


async def test_runs_newest_first_and_the_summary_follows_the_cursor(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_detail(app, pilot)
        rows = cells(screen, "runs")
        assert [r[1] for r in rows] == ["b8 t2", "b4 t2", "b4 t1", "b1 t2", "b1 t1"]
        assert rows[0][2] == "failed" and rows[1][-1] == "yes"
        # the precision run, the same for every run (these do not say): said once above
        assert "ran:?" in text(screen, "runs-common")
        # the newest successful run is selected at first
        assert screen.selected is not None and screen.selected.config.batch == 4
        assert screen.selected.config.threads == 2
        await pilot.press("1")
        await pilot.pause()
        summary = text(screen, "summary-text")
        assert "Batch 4   Threads 2" in summary
        assert "7.41 ±0% ms/batch (median)   540 items/s" in summary
        assert "ISA       sse4_2 avx avx2 fma avx512f" in summary
        assert "openvino 2025.0 on CPU" in summary
        assert "FLOPs    600 M at batch 1" in summary


async def test_rerun_measures_the_selected_config_with_its_budget(app, services):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_detail(app, pilot)
        await pilot.press("down", "r")  # from b4 t2 to b4 t1
        await wait_for(
            pilot, lambda: isinstance(app.screen, LiveRunScreen) and not app.screen.running
        )
        request = services.validated[0]
        assert [(c.batch, c.threads) for c in request.configs] == [(4, 1)]
        assert request.budget.time_s == 2.0
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert len(cells(screen, "runs")) == 6  # the new run is listed on return


async def test_remove_asks_then_deletes_the_selected_run(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_detail(app, pilot)
        await pilot.press("up", "d")  # the failed run
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert [r[1] for r in cells(screen, "runs")] == ["b4 t2", "b4 t1", "b1 t2", "b1 t1"]
        assert all(run.status == "ok" for run in app.store.runs("net-fp32"))


async def test_charts_cycle_views_and_fixed_values(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_detail(app, pilot)
        await pilot.press("3")
        await settled(pilot)
        assert screen.query_one("#tabs", TabbedContent).active == "charts"
        scaling = screen.query_one("#chart-scaling", ScalingChart)
        assert scaling.scaling is not None
        assert [(p.x, p.throughput_fps) for p in scaling.scaling.points] == [(1, 210), (2, 380)]
        await pilot.press("f")
        await pilot.pause()
        assert [(p.x, p.throughput_fps) for p in scaling.scaling.points] == [(1, 300), (2, 540)]
        head = text(screen, "chart-head")
        assert "thread scaling at batch 4" in head and "[/" not in head, head
        await pilot.press("v")  # batch scaling at the first thread count
        await pilot.pause()
        assert [(p.x, p.throughput_fps) for p in scaling.scaling.points] == [(1, 210), (4, 300)]
        await pilot.press("v")  # throughput by run
        await pilot.pause()
        bars = screen.query_one("#chart-bars", BarChart)
        assert bars.display and not scaling.display
        assert [label for label, _ in bars.bars] == ["b1 t1", "b1 t2", "b4 t1", "b4 t2"]
        await pilot.press("v")  # memory by run: these runs were stored without it
        await pilot.pause()
        assert bars.display and "memory by run" in text(screen, "chart-head")
        assert "unknown for these runs" in text(screen, "chart-head")
        await pilot.press("v")  # baseline: latency statistics of one point
        await pilot.pause()
        assert [label for label, _ in bars.bars][:2] == ["min", "median"]
        assert "baseline batch 1, threads 1: 210 items/s" in text(screen, "chart-head")


async def test_layer_types_layers_and_flops(app):
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_detail(app, pilot)
        await pilot.press("4")
        await settled(pilot)
        types = cells(screen, "types")
        assert [r[0] for r in types] == ["Convolution", "FullyConnected", "Eltwise", "FakeQuantize"]
        assert types[0][1:3] == ["2.00", "80.0%"] and types[0][4:] == ["2", "1 FP32 1 I8"]
        assert types[0][3] == "██████▍"  # a text bar of the share
        assert "selected run" in text(screen, "types-head")
        await pilot.press("5")
        await settled(pilot)
        layers = cells(screen, "layers")
        assert [r[0] for r in layers][:2] == ["conv1", "conv2"]
        assert layers[0][5] == "300 M" and layers[-1][6] == "not_run"
        await pilot.press("s")  # sort by type, ascending
        await pilot.pause()
        assert cells(screen, "layers")[0][1] == "Convolution"
        assert "sorted by type ↑" in text(screen, "layers-head")
        await pilot.press("S")  # reversed
        await pilot.pause()
        assert cells(screen, "layers")[0][1] == "FullyConnected"
        await pilot.press("6")
        await settled(pilot)
        flops = cells(screen, "flops")
        assert [r[0] for r in flops] == ["conv1", "conv2", "fc"]
        assert flops[0][2:] == ["300 M", "50.0%", "1.20", "48.0%"]


async def test_a_project_without_runs_explains_what_to_do(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_detail(app, pilot, "empty-project")
        assert cells(screen, "runs") == []
        await pilot.press("r")
        await pilot.pause()
        assert app.screen is screen
        assert any("No run selected" in n.message for n in app._notifications)
        await pilot.press("3")
        await settled(pilot)
        assert "no successful runs yet" in text(screen, "chart-head")
        await pilot.press("4")
        await settled(pilot)
        assert "No per-layer profile yet" in text(screen, "types-head")
        await pilot.press("b")
        await pilot.pause()
        assert type(app.screen).__name__ == "BenchmarkConfigScreen"


async def test_flops_are_computed_at_the_shapes_of_the_run_they_stand_beside(
    db, services, tmp_path
):
    """The detail screen inspected at seq 128 beside a seq 64 profile: the FLOPs follow the
    shapes the profiled run ran with, and follow the cursor to a run of other shapes."""
    from dataclasses import replace

    from perftui.domain.records import Project, RunConfig
    from perftui.store import Store
    from perftui.tui.app import create_app
    from tests.tui.conftest import LAYERS, make_run

    store = Store(db)
    store.add_project(Project("enc", "/models/encoder.onnx", "openvino", "CPU"))
    for seq, second in ((64, 10), (32, 20)):
        run = make_run("enc", 1, 1, 100.0, second, layers=True)
        resolved = {**run.resolved, "shapes": {"input_ids": [1, seq]}}
        config = RunConfig(batch=1, threads=1, dims=(("seq", seq),))
        store.add_run(replace(run, resolved=resolved, config=config, layers=LAYERS))
    app = create_app(db, services)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_detail(app, pilot, "enc")
        assert services.inspected_shapes[-1] == {"input_ids": (1, 32)}  # the newest run
        assert screen.info is not None and screen.info.flops_shapes == {"input_ids": (1, 32)}
        await pilot.press("down")  # the seq 64 run
        await wait_for(pilot, lambda: screen.info.flops_shapes == {"input_ids": (1, 64)})
        assert services.inspected_shapes[-1] == {"input_ids": (1, 64)}
        assert screen.info.flops_shapes == {"input_ids": (1, 64)}
        assert [r[1] for r in cells(screen, "runs")] == ["seq=32", "seq=64"]
        assert "every run: b1 t1 " in text(screen, "runs-common")
