"""Issue 25, item 7: charts that mislead. A histogram bin of a few requests drew the same full
block as one of hundreds; scaling axes stepped unevenly (1667, 1389.2, 833.5); the report's
HTML axis ran to 5,000 for a maximum of 2,215."""

from __future__ import annotations

import itertools
import re

import pytest
from textual.app import App, ComposeResult

from perftui.domain.charts.distribution import Histogram
from perftui.domain.charts.series import Scaling, ScalingPoint
from perftui.domain.report.parts import Bar, Bars, Report, Section
from perftui.domain.report.render import render
from perftui.tui.detail.charts import ScalingChart
from perftui.tui.detail.distribution import FEW, LatencyHistogram

pytestmark = pytest.mark.tui


class ChartApp(App[None]):
    def __init__(self, chart) -> None:
        super().__init__()
        self.chart = chart

    def compose(self) -> ComposeResult:
        yield self.chart


def plain(chart) -> list[str]:
    drawn = chart.render()
    return getattr(drawn, "plain", str(drawn)).splitlines()


async def test_a_bin_of_a_few_requests_is_not_a_full_block():
    chart = LatencyHistogram()
    async with ChartApp(chart).run_test(size=(60, 16)) as pilot:
        edges = tuple(1.0 + 0.1 * n for n in range(7))
        chart.set_data(Histogram(edges, (1000, 400, 50, 3, 1, 0), 0), "")
        await pilot.pause()
        lines = plain(chart)
        bottom = next(line for line in reversed(lines) if "┤" in line)  # the 0 row
        assert FEW in bottom  # the bins of 3 and 1 requests: a thin mark
        assert bottom.count("█") < bottom.count(FEW) + bottom.count("█")  # not all full
        assert any(f"{FEW} under" in line for line in lines)  # and the label says so


async def test_scaling_ticks_are_round_and_evenly_spaced():
    chart = ScalingChart()
    points = tuple(
        ScalingPoint(x, str(x), fps, ms, f"r{x}")
        for x, fps, ms in ((1, 833.5, 1.2), (2, 1389.2, 1.4), (4, 1667.0, 2.4))
    )
    async with ChartApp(chart).run_test(size=(70, 20)) as pilot:
        chart.set_scaling(Scaling("threads", "batch", 1, points, "s:auto"))
        await pilot.pause()
        rows = [
            (n, float(m.group(1).replace(",", "")))
            for n, line in enumerate(plain(chart))
            if (m := re.match(r"\s*([\d,.]+)┤", line))
        ]
        values = [value for _, value in rows]
        steps = {round(a - b, 6) for a, b in itertools.pairwise(values)}
        gaps = {b - a for (a, _), (b, _) in itertools.pairwise(rows)}
        assert len(steps) == 1 and len(gaps) == 1, rows  # one step, one row gap
        assert all(value == int(value) for value in values), values  # round: 0, 500, ...


def test_the_html_axis_ends_at_the_first_round_tick_above_the_data():
    bars = Bars("Throughput", "items/s", (Bar("b1", 2215.0), Bar("b2", 1500.0)))
    html = render(Report("r", (Section("Results", (), (bars,)),)), "html")
    ticks = re.findall(r'class="tick"[^>]*>([\d,.]+)<', html)
    assert ticks[-1] == "2,500" and "5,000" not in ticks, ticks


def test_html_ticks_read_as_numbers_not_exponents():
    bars = Bars("Throughput", "items/s", (Bar("b1", 16023.7),))
    html = render(Report("r", (Section("Results", (), (bars,)),)), "html")
    ticks = re.findall(r'class="tick"[^>]*>([^<]*)<', html)
    assert "15,000" in ticks and not any("e+" in tick for tick in ticks), ticks
