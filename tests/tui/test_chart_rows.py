"""Charts keep what reads them (issue 40, item 12): the compare chart its axis titles when the
runs list is long; the bar charts each bar on the row of its label."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from perftui.tui.app import create_app
from perftui.tui.compare.charts import LatencyThroughputChart
from perftui.tui.detail.charts import BarChart
from tests.tui.compare_data import fill_compare_store, run
from tests.tui.test_chart_honesty import ChartApp, plain
from tests.tui.test_compare import open_compare
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui


async def test_the_compare_chart_says_its_axes_with_a_long_runs_list(tmp_path: Path, services):
    path = tmp_path / "compare.json"
    store = fill_compare_store(path)
    more = [run("net-fp32", 20 + n, 1 + n % 4, n // 4 + 1, 100.0 + 7 * n) for n in range(12)]
    more += [run("net-int8", 40 + n, 1 + n % 4, n // 4 + 1, 200.0 + 9 * n) for n in range(12)]
    store.add_runs([(r, None) for r in more])
    app = create_app(path, services)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(app, pilot, "net-fp32", "net-int8")
        await settled(pilot)
        drawn = str(screen.query_one(LatencyThroughputChart).render())
        assert "latency (ms)" in drawn and "items/s" in drawn, drawn


@pytest.mark.parametrize("unit", ["items/s", ""])  # the memory chart has no x label
@pytest.mark.parametrize("title", ["throughput by run", ""])
@pytest.mark.parametrize("height", [11, 14, 17, 20])
async def test_each_bar_sits_on_the_row_of_its_label(height: int, title: str, unit: str):
    chart = BarChart(title, unit)
    bars = [(f"b{n} t{n}", 100.0 + 10 * n) for n in range(1, 9)]
    async with ChartApp(chart).run_test(size=(78, height)) as pilot:
        chart.set_bars(bars)
        await pilot.pause()
        lines = plain(chart)
    labelled = [line for line in lines if re.match(r"b\d t\d┤", line)]
    drawn = [line for line in lines if "█" in line]
    assert drawn == labelled, "\n".join(lines)  # no bar on a row without a label
    shown = [line[:5] for line in labelled]
    assert shown == [label for label, _ in bars[: len(shown)]]
    if len(shown) < len(bars):
        assert f"first {len(shown)} of 8" in "\n".join(lines)
    lengths = [line.count("█") for line in labelled]
    assert lengths == sorted(lengths) and len(set(lengths)) == len(lengths), "\n".join(lines)
