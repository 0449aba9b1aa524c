"""The compare screens say what is real: B/A with its interval or "no difference beyond
noise", the runs within noise of the sweet spot, and intervals drawn on the Inference Time
bars, from stored runs with their latency samples (the same domain code as `perftui compare`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from textual.widgets import Static

from perftui.domain.records import Project
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.compare.charts import InferenceChart
from tests.tui.conftest import make_run
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui


def windows(fps: float, swing: float = 0.02) -> tuple[float, ...]:
    return tuple(fps * (1 + swing * (i % 3 - 1)) for i in range(12))


def fill(path: Path, b_fps: float) -> None:
    """A at 200 and 202 items/s (two configurations within noise); B at `b_fps`."""
    store = Store(path)
    store.add_project(Project("a", "/models/a.onnx", "openvino", "CPU"))
    store.add_project(Project("b", "/models/b.onnx", "openvino", "CPU"))
    for project, batch, threads, fps, second in (
        ("a", 1, 1, 200.0, 1),
        ("a", 1, 2, 202.0, 2),
        ("b", 1, 1, b_fps, 3),
    ):
        run = replace(make_run(project, batch, threads, fps, second), window_fps=windows(fps))
        median = run.latency_ms.median
        store.add_run(run, np.linspace(0.98, 1.02, run.iterations) * median)


def figures_text(app) -> str:
    return str(app.screen.query_one("#inference-figures", Static).render())


@pytest.mark.parametrize(
    ("b_fps", "said"),
    [(300.0, "B is 1.49x faster ("), (201.0, "throughput: no difference beyond noise")],
)
async def test_the_summary_states_the_difference_with_its_interval(tmp_path, services, b_fps, said):
    fill(tmp_path / "db.json", b_fps)
    app = create_app(tmp_path / "db.json", services)
    async with app.run_test(size=(80, 24)) as pilot:
        app.compare_projects("a", "b")
        await settled(pilot)
        await pilot.press("c")
        await settled(pilot)
        await pilot.press("2")
        await settled(pilot)
        text = figures_text(app)
        assert said in text
        assert "items/s  stable" in text and "±" in text
        bars = app.screen.query_one(InferenceChart).data.bars
        assert all(bar.interval is not None and bar.interval.contains(bar.value) for bar in bars)


async def test_the_setup_names_the_runs_within_noise_of_the_sweet_spot(tmp_path, services):
    fill(tmp_path / "db.json", 150.0)
    app = create_app(tmp_path / "db.json", services)
    async with app.run_test(size=(80, 24)) as pilot:
        app.compare_projects("a", "b")
        await settled(pilot)
        sweet = str(app.screen.query_one("#cmp-sweet", Static).render())
        assert "Sweet spot" in sweet and "A a b1 t2" in sweet
        assert "within noise of it: A b1 t1" in sweet
