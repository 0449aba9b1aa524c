"""Figures carry their unit and their interval (issue 40, item 7): the Summary tab's latency
line, a run's cost per million inferences beside its throughput's interval."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from perftui.domain.records import Project
from perftui.store import Store
from perftui.tui.app import create_app
from tests.tui.conftest import ENV, make_run
from tests.tui.test_detail import cells, open_detail, text

pytestmark = pytest.mark.tui


def priced_run(fps_swing: float) -> object:
    run = make_run("priced", 1, 1, 200.0, 10)
    return replace(
        run,
        window_fps=tuple(200.0 * (1 + fps_swing * (i % 3 - 1)) for i in range(12)),
        resolved={**run.resolved, "environment": {**ENV, "price_per_hour": 3.6}},
    )


async def test_summary_latency_has_its_unit_and_intervals_and_cost_its_interval(db, services):
    store = Store(db)
    store.add_project(Project("priced", "/models/net_fp32.onnx", "openvino", "CPU"))
    samples = np.concatenate([np.linspace(4.5, 5.6, 100), np.full(3, 8.0)])
    store.add_run(priced_run(0.05), samples)
    app = create_app(db, services)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(app, pilot, "priced")
        await pilot.press("1")
        await pilot.pause()
        summary = text(screen, "summary-text")
        latency = next(line for line in summary.splitlines() if line.startswith("Latency"))
        assert latency.startswith("Latency   ms: min ")
        # p90 with its interval; p99 from 103 samples: its interval cannot be bounded
        assert re.search(r"p90 [\d.]+ ±\d", latency), latency
        assert re.search(r"p99 [\d.]+ (±\?|too noisy)", latency), latency
        cost = next(line for line in summary.splitlines() if line.startswith("Cost"))
        assert re.search(r"Cost +5 ±\d+% per million inferences", cost), cost
        await pilot.press("2")
        await pilot.pause()
        row = cells(screen, "runs")[0]
        assert any(re.fullmatch(r"5 ±\d+%", c.strip()) for c in row), row
