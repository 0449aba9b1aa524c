"""The project detail's charts draw each figure's 95 % interval: whiskers on the scaling
chart's throughput points, the throughput bars and the baseline's latency percentiles."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from perftui.domain.measurement.figures import run_figures
from perftui.domain.records import Project
from perftui.tui.detail.charts import BarChart, ScalingChart
from perftui.tui.kit.charts import INTERVAL_LEGEND
from tests.tui.conftest import make_run
from tests.tui.test_detail import open_detail
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui


def measured(threads: int, fps: float, second: int):
    """A run with its windows and latency samples, so its figures have intervals."""
    run = make_run("noisy", 1, threads, fps, second)
    windows = tuple(fps * (1 + 0.05 * (i % 3 - 1)) for i in range(12))
    samples = np.linspace(0.9, 1.1, run.iterations) * run.latency_ms.median
    return replace(run, window_fps=windows), samples


def rendered(chart) -> str:
    return "".join(segment.text for segment in chart.app.console.render(chart.render()))


async def test_scaling_and_bars_draw_the_intervals(app):
    async with app.run_test(size=(100, 30)) as pilot:
        app.store.add_project(Project("noisy", "/models/net_fp32.onnx", "openvino", "CPU"))
        runs = [measured(1, 200.0, 1), measured(2, 360.0, 2)]
        for run, samples in runs:
            app.store.add_run(run, samples)
        screen = await open_detail(app, pilot, "noisy")
        await pilot.press("3")
        await settled(pilot)
        scaling = screen.query_one("#chart-scaling", ScalingChart)
        expected = [run_figures(run, samples).throughput for run, samples in runs]
        assert scaling.intervals == expected and all(expected)
        assert INTERVAL_LEGEND in rendered(scaling)
        await pilot.press("v", "v")  # throughput by run
        await pilot.pause()
        bars = screen.query_one("#chart-bars", BarChart)
        assert bars.intervals == expected
        assert INTERVAL_LEGEND in rendered(bars)
        await pilot.press("v", "v")  # memory by run, then baseline: the latency percentiles
        await pilot.pause()
        latency = run_figures(*runs[0]).latency
        median = bars.intervals[1]
        assert median is not None and bars.intervals[0] is None  # min has no interval
        assert median.hi == pytest.approx(latency["median"].hi, rel=1e-5)  # samples as stored
