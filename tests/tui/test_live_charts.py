"""Issue 12, 9: the live charts fit a new run's points from its first one (the y axis is
drawn from 0 to above every run's points, never from the floor of the points drawn
before), and a benchmark that measured nothing says so instead of waiting."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from textual.app import App, ComposeResult

from perftui.domain.charts.series import LiveLine
from perftui.domain.records import RunConfig
from perftui.tui.benchmark.charts import LiveChart
from perftui.tui.benchmark.live import LiveRunScreen
from tests.tui.test_live import request
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

FIRST = LiveLine(0, "b4 t1", (0.25, 0.5, 0.75), (410.0, 420.0, 430.0), (9.5, 9.6, 9.7))
SECOND = LiveLine(1, "b1 t1", (1.0,), (110.0,), (2.1,))
"""A batch-1 run after a batch-4 one: its first point is far below the first run's."""


class Charts(App[None]):
    def compose(self) -> ComposeResult:
        yield LiveChart("throughput", id="fps")
        yield LiveChart("latency", id="ms")


def y_labels(chart: LiveChart) -> list[float]:
    """The y axis's tick labels, bottom last, as the chart draws them."""
    lines = str(chart.render()).splitlines()
    return [float(m.group(1)) for line in lines if (m := re.match(r"\s*([\d.]+)┤", line))]


async def test_a_new_runs_first_point_is_inside_the_axis() -> None:
    app = Charts()
    async with app.run_test(size=(80, 24)) as pilot:
        fps, ms = app.query_one("#fps", LiveChart), app.query_one("#ms", LiveChart)
        for chart in (fps, ms):
            chart.set_lines([FIRST])
        await pilot.pause()
        for chart in (fps, ms):
            chart.set_lines([FIRST, SECOND])
        await pilot.pause()
        for chart, (low, high) in ((fps, (110.0, 430.0)), (ms, (2.1, 9.7))):
            labels = y_labels(chart)
            assert labels, str(chart.render())
            # room below and above the lowest and highest point: none sits on the frame
            assert min(labels) < low and max(labels) >= high, labels
            steps = {round(a - b, 6) for a, b in pairwise(labels)}
            assert len(steps) == 1, labels  # round ticks, evenly spaced


async def test_a_benchmark_whose_runs_all_failed_says_nothing_was_measured(app, services):
    services.fail_index, services.ticks = 0, 0
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app, (RunConfig(1, 1),))], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
        for chart in screen.query(LiveChart):
            assert not chart.has_data()
            text = str(chart.render())
            assert "waiting" not in text and "the run failed: nothing was measured" in text


async def test_a_benchmark_that_could_not_start_says_so_in_its_charts(app, services):
    services.invalid = "device 'GPU' is not available to openvino on this machine"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=False)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
        for chart in screen.query(LiveChart):
            assert "nothing was measured: the benchmark could not start" in str(chart.render())
