"""Issue 42 in the dashboard: the benchmark form takes rates; the live screen charts latency
from arrival against offered rate as the rate runs finish; the project detail's Traffic tab
shows each configuration's traffic curve with its table, every figure with its interval."""

from __future__ import annotations

import re

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from perftui.domain.charts.traffic import traffic_curves
from perftui.domain.records import Project, RunConfig
from perftui.tui.benchmark.live import LiveRunScreen
from perftui.tui.kit.charts import INTERVAL_LEGEND
from perftui.tui.kit.format import verdict_word
from perftui.tui.kit.traffic_chart import TrafficChart
from tests.factories import run_result, traffic
from tests.tui.conftest import open_loop
from tests.tui.test_configure import note, open_config, type_into
from tests.tui.test_detail import cells, open_detail
from tests.tui.test_live import request
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui

RATES = (100.0, 400.0, 1600.0)
"""The last one saturates (tests.tui.conftest.SATURATED_FROM)."""


def rendered(chart) -> str:
    return "".join(segment.text for segment in chart.app.console.render(chart.render()))


def y_labels(chart) -> list[float]:
    return [
        float(m.group(1))
        for line in rendered(chart).splitlines()
        if (m := re.match(r"\s*([\d.]+)[┤├]", line))
    ]


async def test_the_form_takes_rates_and_arrivals_and_refuses_bad_ones_in_a_line(app):
    async with app.run_test(size=(80, 24)) as pilot:
        for name in ("net-fp32", "net-int8"):  # OpenVINO and ONNX Runtime both take them
            screen = await open_config(app, pilot, app.store.get_project(name))
            planned = int(str(screen.query_one("#cfg-plan", Static).render()).split(" ")[0])
            for field, bad, said in (
                ("rate", "0", "rate 0 is not a request rate"),  # as typed
                ("rate", "100,fast", "fast"),
                ("arrival", "bursty", "bursty"),
            ):
                await type_into(pilot, screen, field, bad)
                text = note(screen, field)
                assert said in text and screen.query_one(f"#e-{field}").has_class("error")
                assert "\n" not in text and "--" not in text  # no CLI flag in the form
            await type_into(pilot, screen, "rate", "100,200")
            await type_into(pilot, screen, "arrival", "constant")
            for field in ("rate", "arrival"):
                shown = screen.query_one(f"#e-{field}", Static)
                assert not shown.has_class("error"), note(screen, field)
                assert "does not take" not in note(screen, field)
                assert shown.region.right <= 80 and shown.size.height == 1
            plan = str(screen.query_one("#cfg-plan", Static).render())
            assert plan.startswith(f"{planned * 2} run(s)"), plan  # each rate a run
            app.pop_screen()
            await pilot.pause()


async def test_the_live_chart_draws_each_finished_rate_against_offered_rate(app):
    configs = [RunConfig(rate=rate) for rate in RATES]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app, configs)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await settled(pilot)
        chart = screen.query_one(TrafficChart)
        assert not screen.query("#chart-ms")  # the latency-over-time chart gives way
        (curve,) = chart.curves
        assert [p.rate for p in curve.points] == list(RATES)
        assert [p.p99 for p in curve.points] == [open_loop(r).latency["p99"] for r in RATES]
        assert [p.saturated for p in curve.points] == [False, False, True]
        text = rendered(chart)
        assert "S saturated" in text and "S" in text.split("\n", 1)[1]
        assert "▞p99 •p50" in text  # a narrow chart has no legend: its title says the markers
        assert max(y_labels(chart)) >= open_loop(RATES[-1]).latency["p99"].hi
        labels = [str(screen.query_one("#live-runs", DataTable).get_row_at(i)[1]) for i in range(3)]
        assert labels == ["@100/s", "@400/s", "@1600/s"]


async def test_a_closed_loop_benchmark_keeps_its_latency_chart(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        assert screen.query("#chart-ms") and not screen.query(TrafficChart)


def store_open_loop(app) -> None:
    app.store.add_project(Project("served", "/models/net_fp32.onnx", "openvino", "CPU"))
    for n, rate in enumerate(RATES):
        for batch in (1, 4):
            figures = open_loop(rate)
            app.store.add_run(
                run_result(
                    rate * batch,
                    config=RunConfig(batch=batch, rate=rate),
                    traffic=figures,
                    project="served",
                    started_at=f"2026-11-29T09:00:{n * 2 + batch:02d}+00:00",
                )
            )
    app.store.add_run(run_result(900.0, project="served", started_at="2026-11-29T08:00:00+00:00"))


async def test_the_traffic_tab_shows_each_configurations_curve_and_table(app):
    async with app.run_test(size=(80, 24)) as pilot:
        store_open_loop(app)
        screen = await open_detail(app, pilot, "served")
        await pilot.press("9")
        await settled(pilot)
        head = str(screen.query_one("#traffic-head", Static).render())
        assert "traffic curve" in head and "b1" in head and "1/2" in head
        rows = cells(screen, "traffic-table")
        assert [row[0] for row in rows] == ["@100/s", "@400/s", "@1600/s S"]
        top = open_loop(RATES[-1])
        p99 = top.latency["p99"]
        assert rows[2][3].strip() == f"{p99.value:.0f} ±5%"  # every figure with its interval
        assert rows[2][1].strip() == f"{top.achieved_rate:,.0f} ±2%"
        (curve,) = [c for c in screen.state.traffic_curves() if c.config.batch == 1]
        verdicts = [screen.state.figures(p.run).verdict.status for p in curve.points]
        assert [row[6] for row in rows] == [verdict_word(v) for v in verdicts]  # the run's
        notes = str(screen.query_one("#traffic-notes", Static).render())
        assert "@1600/s S saturated: the queue grew through the window" in notes
        chart = screen.query_one("#chart-traffic", TrafficChart)
        assert chart.region.height >= 8 and chart.region.right <= 80
        assert INTERVAL_LEGEND in rendered(chart) or chart.narrow
        await pilot.press("f")
        await settled(pilot)
        assert "b4" in str(screen.query_one("#traffic-head", Static).render())
        assert chart.curves[0].config.batch == 4


async def test_the_traffic_tab_says_how_to_get_a_curve(app):
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(app, pilot, "net-fp32")
        await pilot.press("9")
        await settled(pilot)
        assert "No runs at a rate yet" in str(screen.query_one("#traffic-head", Static).render())


class Chart(App[None]):
    def compose(self) -> ComposeResult:
        yield TrafficChart(id="traffic")


async def test_the_objective_and_the_capacity_are_drawn_where_given():
    """The hook the capacity's line uses: an objective above every point lifts the y axis
    to it; a capacity beyond every rate stretches the x axis to it."""
    runs = [
        run_result(r, config=RunConfig(rate=r), traffic=traffic(r, 2.0, 4.0)) for r in (100, 200)
    ]
    app = Chart()
    async with app.run_test(size=(100, 24)) as pilot:
        chart = app.query_one(TrafficChart)
        chart.set_curves(traffic_curves(runs))
        await pilot.pause()
        assert max(y_labels(chart)) < 50
        chart.set_curves(traffic_curves(runs), objective_ms=50.0, capacity=500.0)
        await pilot.pause()
        assert max(y_labels(chart)) >= 50
        ticks = rendered(chart).splitlines()[-3]
        assert "500" in ticks, rendered(chart)
