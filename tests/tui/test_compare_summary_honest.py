"""Issue 40, items 1 and 4: the compare summary at 80x24 says when the compared runs differ
in settings, beside its verdict, and shows the paired verdict once `M` has measured both."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.compare import compare_projects
from perftui.domain.compare.verdicts import SINGLE_RUNS
from perftui.domain.forms.bench import MEASURE_ROUNDS
from perftui.domain.records import Project
from perftui.store import Store
from perftui.tui.app import create_app
from perftui.tui.compare.summary import CompareSummaryScreen
from perftui.tui.measure.screen import MeasureScreen
from tests.tui.compare_data import run
from tests.tui.conftest import FakeServices
from tests.tui.test_measure import two_benchmarked
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui


def screen_lines(app) -> list[str]:
    """The screen as its lines of text, as a person sees it."""
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


async def open_inference_tab(pilot, app, comparison) -> None:
    """The compare summary of `comparison` open on its Inference tab, as a person opens it."""
    await wait_for(pilot, lambda: app.store is not None and len(app.screen_stack) > 1)
    app.compare_summary(comparison)
    await wait_for(pilot, lambda: isinstance(app.screen, CompareSummaryScreen))
    await pilot.press("2")  # the Inference tab (it opens there without profiles)
    await settled(pilot)


def windowed(result, swing: float = 0.02):
    """A run whose timed windows swing around its throughput (so it has an interval)."""
    fps = result.throughput_fps
    return replace(result, window_fps=tuple(fps * (1 + swing * (i % 3 - 1)) for i in range(12)))


def two_projects(path: Path) -> Store:
    """A measured at batch 2 only, B at batch 1 only: no configuration on both sides."""
    store = Store(path)
    for name in ("big", "small"):
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
    for n, (name, batch, fps) in enumerate((("big", 2, 260.0), ("small", 1, 420.0))):
        measured = windowed(run(name, n, batch, 0, fps))
        median = measured.latency_ms.median
        store.add_run(measured, np.random.default_rng(n).normal(median, median / 20, 400))
    return store


async def test_the_summary_says_the_compared_runs_differ_in_settings(tmp_path: Path, services):
    store = two_projects(tmp_path / "db.json")
    runs = store.runs("big"), store.runs("small")
    samples = lambda r: store.latency_samples(r.id)  # noqa: E731
    c = compare_projects("big", runs[0], "small", runs[1], 20.0, "p90", samples=samples)
    assert c.settings_note is not None and c.throughput is not None
    assert c.throughput.text.startswith("B is")  # a verdict with its interval
    app = create_app(tmp_path / "db.json", services)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_inference_tab(pilot, app, c)
        lines = screen_lines(app)
    shown = "\n".join(lines)
    verdict = next(n for n, line in enumerate(lines) if "B's p90 latency is" in line)
    assert "differ in settings (batch 2 vs 1" in lines[verdict + 1], shown  # beside it
    assert SINGLE_RUNS[:20] in shown  # and the other notes still follow


async def test_after_m_the_summary_shows_the_paired_verdict(tmp_path: Path):
    store = two_benchmarked(tmp_path / "db.json")
    c = compare_projects("fp32", store.runs("fp32"), "int8", store.runs("int8"))
    assert SINGLE_RUNS in c.measurement_notes  # measured apart, one run each: "press M"
    app = create_app(tmp_path / "db.json", FakeServices(ticks=1))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_inference_tab(pilot, app, c)
        summary = app.screen
        before = "\n".join(screen_lines(app))
        await pilot.press("M")
        await wait_for(pilot, lambda: isinstance(app.screen, MeasureScreen))
        measure = app.screen
        await wait_for(pilot, lambda: not measure.running, 30)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is summary)
        await settled(pilot)
        lines = screen_lines(app)
    shown = "\n".join(lines)
    assert "measured alternately" not in before and "one run per side" in before
    paired = summary.comparison.alternated
    assert paired is not None and paired.rounds == MEASURE_ROUNDS
    assert f"measured alternately, {MEASURE_ROUNDS} rounds: " in shown, shown
    assert "measured apart, each side's runs: " in shown  # which verdict is which
    assert "one run per side" not in shown and "Measure, M" not in shown  # no stale advice
