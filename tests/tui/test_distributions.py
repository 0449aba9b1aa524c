"""Latency distributions from the stored raw samples: the project detail's Latency tab
(histogram and latency over the run) and the compare summary's CDF of A and B."""

from __future__ import annotations

import numpy as np
import pytest
from textual.widgets import Static

from perftui.domain.charts.distribution import cdf, histogram, over_time
from perftui.store.database import Store
from perftui.tui.compare.distribution import CdfChart
from perftui.tui.detail.distribution import LatencyHistogram, LatencyOverTime
from perftui.tui.detail.screen import ProjectDetailScreen
from tests.tui.conftest import make_run
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui

SLOW_START = np.concatenate([np.full(100, 9.0), np.full(400, 3.0)])
"""A run that warms up: its first 100 requests three times slower."""


def test_histogram_timeline_and_cdf_of_known_samples():
    found = histogram(SLOW_START, bins=6)
    assert found is not None and sum(found.counts) + found.beyond == 500
    assert found.counts[0] == 400 and found.counts[-1] == 100
    timeline = over_time(SLOW_START, points=10)
    assert timeline is not None and timeline.median[:2] == (9.0, 9.0)
    assert timeline.median[-1] == 3.0 and timeline.index[1] == 50
    xs, ys = cdf(SLOW_START, points=5)
    assert xs == [3.0, 3.0, 3.0, 3.0, 9.0] and ys[-1] == 1.0
    assert histogram([]) is None and over_time([]) is None and cdf([]) == ([], [])


def add_warming_run(db) -> None:
    """net-int8's newest and fastest run (the one the detail and the compare pick)."""
    Store(db).add_run(make_run("net-int8", 2, 1, 700.0, 30), SLOW_START)


async def test_the_detail_latency_tab_draws_the_selected_runs_samples(db, app):
    add_warming_run(db)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_project("net-int8")
        await pilot.pause()
        assert isinstance(app.screen, ProjectDetailScreen)
        await pilot.press("7")
        await settled(pilot)
        head = str(app.screen.query_one("#latency-head", Static).render())
        assert head.startswith("Latency of b2 t1") and "500 requests, 3.00-9.00 ms" in head
        hist = app.screen.query_one(LatencyHistogram)
        assert hist.data is not None and sum(hist.data.counts) == 500
        timeline = app.screen.query_one(LatencyOverTime)
        assert timeline.data is not None and timeline.data.median[0] == 9.0
        assert "█" in str(hist.render()) and "•" in str(timeline.render())
        # a run without samples says so
        await pilot.press("2", "down")
        await pilot.pause()
        await pilot.press("7")
        await settled(pilot)
        assert "kept no latency samples" in str(app.screen.query_one("#latency-head").render())


async def test_the_compare_summary_lays_the_two_cdfs_over_each_other(db, app):
    add_warming_run(db)
    async with app.run_test(size=(80, 24)) as pilot:
        app.compare_projects("net-fp32", "net-int8")
        await settled(pilot)
        await pilot.press("c")
        await settled(pilot)
        await pilot.press("4")
        await settled(pilot)
        chart = app.screen.query_one(CdfChart)
        head = str(app.screen.query_one("#cdf-head", Static).render())
        assert "● A net-fp32" in head and "◆ B net-int8" in head
        assert chart.has_data()
        drawn = str(chart.render())
        assert "●" in drawn or "◆" in drawn


@pytest.mark.timeout(60)
async def test_the_histogram_of_equal_samples_is_drawn(db, app):
    """Equal samples make one bin a microsecond wide; drawn as one bar a unit wide over that
    range, plotext never finished and the dashboard froze (not even q answered)."""
    Store(db).add_run(make_run("net-int8", 2, 1, 700.0, 30), np.full(50, 1.0))
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_project("net-int8")
        await pilot.pause()
        await pilot.press("7")
        await settled(pilot)
        hist = app.screen.query_one(LatencyHistogram)
        assert hist.data is not None and sum(hist.data.counts) == 50
        drawn = str(hist.render())
        assert "█" in drawn and "1.00" in drawn
