"""Issue 42 in the compare summary at 80x24: where one side's run at a rate is compared and the
other has none at it, the summary says so and gives no B/A of an open-loop figure over a
closed-loop one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perftui.domain.compare import compare_projects
from perftui.domain.records import Project, RunConfig
from perftui.store import Store
from perftui.tui.app import create_app
from tests.factories import flat_latency, run_result, traffic
from tests.tui.test_compare_summary_honest import open_inference_tab, screen_lines

pytestmark = pytest.mark.tui


def store_two(path: Path) -> Store:
    """fp32 measured at 200 requests/s only, int8 in a closed loop only."""
    store = Store(path)
    for n, (name, rate, fps, p99) in enumerate(
        (("fp32", 200.0, 200.0, 8.0), ("int8", None, 1800.0, 1.5))
    ):
        store.add_project(Project(name, f"/models/{name}.onnx", "onnxruntime", "CPU"))
        run = run_result(
            fps,
            config=RunConfig(rate=rate),
            latency_ms=flat_latency(p99 / 2, p99=p99),
            traffic=None if rate is None else traffic(rate, p99 / 2, p99),
            window_fps=tuple(fps * (1 + 0.01 * (i % 3 - 1)) for i in range(12)),
            project=name,
            iterations=1000,
            started_at=f"2026-11-29T09:00:0{n}+00:00",
        )
        store.add_run(run, np.linspace(0.5, 1.0, 1000) * p99)
    return store


async def test_the_summary_says_a_side_lacks_the_rate_and_gives_no_ratio(tmp_path, services):
    store = store_two(tmp_path / "db.json")
    at_rate = store.runs("fp32")
    # unpinned, fp32 has no closed-loop run to compare; pinned at its rate, int8 lacks it
    c = compare_projects(
        "fp32", at_rate, "int8", store.runs("int8"), stat="p99", a_pinned=at_rate[0].id
    )
    app = create_app(tmp_path / "db.json", services)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_inference_tab(pilot, app, c)
        shown = "\n".join(screen_lines(app))
    assert "B (int8) has no run at 200/s" in shown, shown
    assert "B/A:" not in shown and "faster" not in shown and "slower" not in shown, shown
