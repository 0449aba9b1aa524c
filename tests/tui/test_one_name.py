"""One name per configuration and per model (issue 40, item 13): the live table, its notice
and the charts name a run alike; `bench` and `show` number rows in one order; the dashboard
and `perftui bench` give a model one engine and one project name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from perftui.cli.bench import request_from_args
from perftui.cli.entry import build_parser
from perftui.cli.textfmt import runs_table
from perftui.domain.records import Project, RunConfig
from perftui.store import Store
from perftui.tui.app import create_app
from perftui.tui.benchmark.live import LiveRunScreen
from perftui.tui.detail.charts import BarChart
from tests.cli_helpers import perftui
from tests.tui.conftest import make_run
from tests.tui.test_detail import cells, open_detail
from tests.tui.test_flops_shapes import new_project_inspecting
from tests.tui.test_live import request, table_rows
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

SYNC_ASYNC = (
    RunConfig(batch=1, api="sync", dims=(("seq", 32),)),
    RunConfig(batch=1, api="async", dims=(("seq", 32),)),
)


async def test_the_live_table_and_its_notice_name_a_run_alike(app, services):
    services.noisy_index = 0
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app, SYNC_ASYNC)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
        name = table_rows(screen)[0][1]
        assert name == "sync", name  # what differs; 'b1 ... seq=32' is said once above
        assert next(line.label for line in screen.series.snapshot()) == name


async def test_the_detail_charts_name_runs_as_the_runs_table_does(db, services):
    store = Store(db)
    store.add_project(Project("enc", "/models/encoder.onnx", "openvino", "CPU"))
    for n, config in enumerate(SYNC_ASYNC):
        run = make_run("enc", 1, 0, 100.0 + 50 * n, 10 + n)
        store.add_run(replace(run, config=config))
    app = create_app(db, services)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(app, pilot, "enc")
        await pilot.press("2")
        await pilot.pause()
        table = sorted(row[1] for row in cells(screen, "runs"))
        await pilot.press("3")
        await pilot.pause()
        while screen.state.chart_view != "runs":
            await pilot.press("v")
            await pilot.pause()
        bars = screen.query_one("#chart-bars", BarChart)
        await wait_for(pilot, lambda: bool(bars.bars))
        assert sorted(label for label, _ in bars.bars) == table == ["async", "sync"]


def test_bench_and_show_number_a_projects_rows_in_one_order() -> None:
    project = Project("p", "/models/m.onnx", "openvino", "CPU")
    runs = [make_run("p", batch, 1, 100.0 * batch, second) for second, batch in enumerate((1, 4))]
    as_bench = runs_table(runs, project=project)  # as measured
    as_show = runs_table(runs[::-1], project=project)  # the store: newest first
    assert as_bench == as_show
    first = next(line for line in as_bench.splitlines() if line.startswith("1 "))
    assert " b1 " in first


async def test_the_dashboard_and_bench_give_a_model_one_engine_and_one_name(app, tmp_path: Path):
    model = tmp_path / "minilm_l6.onnx"
    bench = request_from_args(build_parser().parse_args(["bench", str(model)])).project
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await new_project_inspecting(app, pilot, model)
        assert screen.query_one("#engine", Select).value == bench.engine == "openvino"
        assert screen.query_one("#name", Input).value == bench.name == "minilm_l6-openvino-CPU"


def test_show_numbers_runs_of_one_second_as_bench_did(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    store = Store(path)
    project = store.add_project(Project("p", "/models/m.onnx", "openvino", "CPU"))
    measured = [
        replace(make_run("p", 1, 1, 100.0, 1), config=config, id="")
        for config in SYNC_ASYNC  # both started in one second, sync first
    ]
    for run in measured:
        store.add_run(run)
    shown = perftui("show", "p", db=path)
    assert shown.returncode == 0, shown.stderr
    rows = [line for line in shown.stdout.splitlines() if line[:2] in ("1 ", "2 ")]
    assert [" sync " in rows[0], " async " in rows[1]] == [True, True], shown.stdout
    assert runs_table(measured, project=project).splitlines()[2:4] == rows
