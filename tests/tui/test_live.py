"""Live run screen: progress, charts, the runs table, cancel, failures; results always stored."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import DataTable

from perftui.bench import protocol
from perftui.domain.records import BenchmarkRequest, Budget, RunConfig
from perftui.tui.screens.detail import ProjectDetailScreen
from perftui.tui.screens.dialogs import ConfirmScreen
from perftui.tui.screens.live import LiveEvent, LiveRunScreen, LiveTick
from perftui.tui.widgets.charts import LiveChart

pytestmark = pytest.mark.tui


TWO = (RunConfig(1, 1), RunConfig(4, 1))


def request(app, configs=TWO) -> BenchmarkRequest:
    return BenchmarkRequest(app.store.get_project("net-int8"), tuple(configs), Budget(time_s=1))


async def until(pilot, condition, tries: int = 100) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached")


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
        await until(pilot, lambda: not screen.running)
        await pilot.pause(0.3)  # one more chart redraw
        rows = table_rows(screen)
        assert [row[1] for row in rows] == ["b1 t1", "b4 t1"]
        assert [row[2] for row in rows] == ["ok", "ok"]
        chart = screen.query_one("#chart-fps", LiveChart)
        assert [line.label for line in chart.lines] == ["b1 t1", "b4 t1"]
        assert chart.lines[1].xs[0] > chart.lines[0].xs[-1]  # one time axis
        assert services.validated == []  # already validated by the configuration screen
        assert len(app.store.runs("net-int8")) == before + 2
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, ProjectDetailScreen))
        assert app.screen.project_name == "net-int8"


async def test_cancel_keeps_the_run_in_progress_as_cancelled(app, services):
    services.gate = threading.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await until(pilot, lambda: screen.series.version > 0)
        assert screen.running
        await pilot.press("x")
        await until(pilot, lambda: not screen.running)
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
        await until(pilot, lambda: screen.series.version > 0)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and screen.running
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")
        await until(pilot, lambda: app.screen is not screen)
        assert services.clients[0].cancelled


async def test_a_failed_run_is_shown_and_the_rest_goes_on(app, services):
    services.fail_index = 0
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await until(pilot, lambda: not screen.running)
        assert [row[2] for row in table_rows(screen)] == ["failed", "ok"]
        messages = [n.message for n in app._notifications]
        assert any("worker died" in m for m in messages)


async def test_a_request_refused_at_start_is_reported(app, services):
    services.invalid = "device 'GPU' is not available to openvino on this machine; available: CPU"
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=False)
        app.push_screen(screen)
        await until(pilot, lambda: not screen.running)
        assert table_rows(screen) == []
        assert any("not available" in n.message for n in app._notifications)
        assert services.clients == []
