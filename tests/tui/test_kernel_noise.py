"""Per-layer times with their intervals, and noise never tops the Kernels tab (issue 40,
item 7): 'conv2 0.259 BF16 3.86 I8 +3.601' was one profile's hiccup at the top of the list."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from perftui.domain.records import BenchmarkRequest, Budget, LayerProfile, Project, RunConfig
from perftui.store import Store
from perftui.tui.app import create_app
from perftui.tui.compare.summary import CompareSummaryScreen
from tests.tui.compare_data import run
from tests.tui.test_compare import cells, open_compare, text
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


def profile(conv1: float, conv2: float, precision: str) -> tuple[LayerProfile, ...]:
    return (
        LayerProfile("conv1", "Convolution", f"jit_{precision}", precision, "executed", conv1),
        LayerProfile("conv2", "Convolution", f"jit_{precision}", precision, "executed", conv2),
    )


# conv1: 1.20 -> 0.50 ms in every repetition; conv2: 0.26 ms, once 3.86 ms in B (a hiccup)
SIDES = {
    "fp32": [profile(1.20, 0.259, "BF16"), profile(1.21, 0.26, "BF16"),
             profile(1.19, 0.26, "BF16")],
    "int8": [profile(0.50, 3.86, "I8"), profile(0.51, 0.25, "I8"), profile(0.49, 0.27, "I8")],
}  # fmt: skip


def fill(path: Path) -> None:
    store = Store(path)
    for n, (name, profiles) in enumerate(SIDES.items()):
        project = store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
        config = RunConfig(batch=1, threads=0)
        request = BenchmarkRequest(project, (config,), Budget(time_s=1.0), repeat=3)
        bench = store.add_benchmark(request)
        for rep, layers in enumerate(profiles):
            found = run(name, 10 * n + rep, 1, 0, 200.0 * (n + 1), layers)
            store.add_run(replace(found, benchmark_id=bench, repetition=rep), None)


async def test_the_kernels_tab_gives_intervals_and_ranks_changes_beyond_noise_first(
    tmp_path: Path, services
):
    path = tmp_path / "db.json"
    fill(path)
    app = create_app(path, services)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_compare(app, pilot, "fp32", "int8")
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareSummaryScreen))
        summary = app.screen
        await pilot.press("3")
        await pilot.pause()
        rows = cells(summary, "cmp-layers")
        assert [row[0] for row in rows] == ["conv1", "conv2"], rows  # the hiccup is not first
        conv1, conv2 = rows
        assert "±" in conv1[1] and "±" in conv1[3] and "?" not in conv1[1] + conv1[3]
        assert conv2[-1].endswith("~"), conv2  # within noise, and marked so
        assert not conv1[-1].endswith("~"), conv1
        assert "mean of 3 profiles" in text(summary, "#kernel-head")
