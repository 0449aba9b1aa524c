"""Live run screen: progress, charts, the runs table, cancel, failures; results always stored."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import replace

import pytest
from textual.widgets import DataTable

from perftui.bench import protocol
from perftui.domain.records import BenchmarkRequest, Budget, RunConfig
from perftui.tui.benchmark import live
from perftui.tui.benchmark.charts import ChartLag, LiveChart
from perftui.tui.benchmark.live import (
    CHART_BUDGET,
    REDRAW_HZ,
    LiveEvent,
    LiveRunScreen,
    LiveTick,
)
from perftui.tui.detail.screen import ProjectDetailScreen
from perftui.tui.kit.dialogs import ConfirmScreen
from perftui.tui.kit.pacing import LONGEST_WAIT_S, redraw_interval
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui


TWO = (RunConfig(1, 1), RunConfig(4, 1))


def request(app, configs=TWO) -> BenchmarkRequest:
    return BenchmarkRequest(app.store.get_project("net-int8"), tuple(configs), Budget(time_s=1))


def table_rows(screen) -> list[list[str]]:
    table = screen.query_one("#live-runs", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def test_progress_ticks_replace_each_other_but_other_events_do_not():
    tick = protocol.Progress(0, 0.25, 10, 0.1, 100.0, 2.0)
    assert LiveTick(0, tick).can_replace(LiveTick(0, tick))
    started = LiveEvent(0, 0, protocol.RunStarted(0, 1, RunConfig()))
    assert not LiveTick(0, tick).can_replace(started)
    assert not started.can_replace(LiveTick(0, tick))


async def test_a_benchmark_runs_to_the_end_and_its_runs_are_stored(app, services):
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        before = len(app.store.runs("net-int8"))
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await settled(pilot)  # the final redraw
        rows = table_rows(screen)
        assert [row[1] for row in rows] == ["b1", "b4"]  # t1 is said once above
        assert [row[2] for row in rows] == ["stable", "stable"]
        chart = screen.query_one("#chart-fps", LiveChart)
        assert [line.label for line in chart.lines] == ["b1", "b4"]
        assert chart.lines[1].xs[0] > chart.lines[0].xs[-1]  # one time axis
        assert services.validated == []  # already validated by the configuration screen
        assert len(app.store.runs("net-int8")) == before + 2
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ProjectDetailScreen))
        assert app.screen.project_name == "net-int8"


async def test_repetitions_count_in_the_progress_and_are_told_apart(app, services):
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([replace(request(app), repeat=2)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        assert screen.total == 4  # "run 3 of 4", not "of 2"
        labels = [row[1] for row in table_rows(screen)]
        assert labels == ["b1 (1/2)", "b4 (1/2)", "b1 (2/2)", "b4 (2/2)"]
        chart = screen.query_one("#chart-fps", LiveChart)
        assert [line.label for line in chart.lines] == labels  # four lines, none drawn over


async def test_cancel_keeps_the_run_in_progress_as_cancelled(app, services):
    services.gate = threading.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.series.version > 0)
        assert screen.running
        await pilot.press("x")
        await wait_for(pilot, lambda: not screen.running)
        assert [row[2] for row in table_rows(screen)] == ["cancelled"]
        assert services.clients[0].cancelled
        stored = app.store.runs("net-int8")
        assert stored[0].status == "cancelled"


async def test_escape_while_running_asks_before_cancelling(app, services):
    services.gate = threading.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.series.version > 0)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and screen.running
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is not screen)
        assert services.clients[0].cancelled


async def test_a_failed_run_is_shown_and_the_rest_goes_on(app, services):
    services.fail_index = 0
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        assert [row[2] for row in table_rows(screen)] == ["failed", "stable"]
        messages = [n.message for n in app._notifications]
        assert any("worker died" in m for m in messages)


async def test_a_request_refused_at_start_is_reported(app, services):
    services.invalid = "device 'GPU' is not available to openvino on this machine; available: CPU"
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=False)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        assert table_rows(screen) == []
        assert any("not available" in n.message for n in app._notifications)
        assert services.clients == []


def count_plots(monkeypatch) -> Counter[str]:
    """How many times each live chart builds its figure."""
    plots: Counter[str] = Counter()
    plot = LiveChart.plot

    def counted(self) -> None:
        plots[self.id] += 1
        plot(self)

    monkeypatch.setattr(LiveChart, "plot", counted)
    return plots


async def test_a_flood_of_ticks_redraws_the_charts_at_a_bounded_rate(app, services, monkeypatch):
    services.ticks = 400  # per run, as fast as the reader can post them
    plots = count_plots(monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        start = time.monotonic()
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        elapsed = time.monotonic() - start
        await settled(pilot)  # the final frame
        bound = REDRAW_HZ * elapsed + 2  # the timer's ticks, plus the final redraw
        assert 1 <= plots["chart-fps"] <= bound and 1 <= plots["chart-ms"] <= bound
        # every tick was recorded even though few were drawn (the last one of each run too)
        lines = screen.series.snapshot()
        assert [line.throughput_fps[-1] for line in lines] == [100 + 4000, 400 + 4000]
        assert table_rows(screen)[1][3] == "405 ±0.5%"
        # finished: the redraw timer stops, nothing is drawn again
        drawn = dict(plots)
        await pilot.pause(3 / REDRAW_HZ)
        assert dict(plots) == drawn


async def test_nothing_is_redrawn_while_nothing_changes(app, services, monkeypatch):
    services.gate = threading.Event()  # the run stalls after its first tick
    plots = count_plots(monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: plots["chart-fps"] > 0)
        updates = Counter()
        text = screen._text

        def counted(widget_id: str, value: str) -> None:
            updates[widget_id] += 1
            text(widget_id, value)

        screen._text = counted  # type: ignore[method-assign]
        drawn = dict(plots)
        await pilot.pause(4 / REDRAW_HZ)
        assert dict(plots) == drawn  # no new points: no figure is built
        assert screen.running and "current-text" not in updates  # and no text is set
        services.gate.set()
        await wait_for(pilot, lambda: not screen.running)


async def test_charts_that_are_dear_to_draw_are_drawn_less_often(app, services):
    services.gate = threading.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.is_mounted)
        chart = screen.query_one("#chart-fps", LiveChart)
        await wait_for(pilot, lambda: bool(chart.lines))
        shown = chart.lines
        # as if the dashboard had used 20 s of CPU since that frame: within CHART_BUDGET the
        # next one waits the longest wait, however slow this machine makes the pauses below
        screen._charted_at, screen._charted_cpu = time.monotonic(), time.process_time() - 20.0
        assert redraw_interval(20.0, REDRAW_HZ, CHART_BUDGET) == LONGEST_WAIT_S
        for n in range(4):
            screen.series.add(0, 1.0 + n, 120.0, 2.0)
            screen._redraw()
            await pilot.pause(0.05)
        assert chart.lines == shown  # too soon for another frame
        screen._redraw(force=True)
        assert chart.lines != shown and chart.lines[0].xs[-1] == 4.0
        services.gate.set()
        await wait_for(pilot, lambda: not screen.running)


class RunGates:
    """Stalls the first and the third run at their first tick, each until let through."""

    def __init__(self) -> None:
        self.calls, self.first, self.third = 0, threading.Event(), threading.Event()

    def wait(self, timeout: float) -> None:
        self.calls += 1
        gate = {1: self.first, 3: self.third}.get(self.calls)
        if gate is not None:
            gate.wait(timeout)

    def set(self) -> None:
        self.first.set()
        self.third.set()


async def test_a_chart_behind_the_table_says_how_many_runs_it_shows(app, services, monkeypatch):
    services.gate = gates = RunGates()
    configs = (RunConfig(1, 1), RunConfig(2, 1), RunConfig(4, 1))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app, configs)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.is_mounted)
        chart = screen.query_one("#chart-fps", LiveChart)
        await wait_for(pilot, lambda: bool(chart.lines))
        # from now on every frame is dear: the charts wait (as over a slow link)
        monkeypatch.setattr(live, "redraw_interval", lambda *args: 1000.0)
        gates.first.set()
        await wait_for(pilot, lambda: len(table_rows(screen)) == 2)
        lag = screen.query_one(ChartLag)
        assert lag.display and lag.said == "chart: 1 of 2 runs"
        assert [line.index for line in chart.lines] == [0]
        gates.third.set()
        await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
        # the last frame draws every run: nothing to say any more
        assert [line.index for line in chart.lines] == [0, 1, 2]
        assert not lag.display and lag.said == ""
