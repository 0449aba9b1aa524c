"""Issue 42's capacity in the dashboard at 80x24: the detail's Traffic tab draws the newest
capacity search's objective and capacity and says them in one line, every figure with its
interval and the configuration named; the compare summary gives capacity B/A, or why not, in
the words `perftui compare` prints."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from textual.widgets import Static

from perftui.domain.compare import compare_projects
from perftui.domain.compare.capacity import ratio_lines
from perftui.domain.records import BenchmarkRequest, Project, RunConfig
from perftui.domain.traffic.objective import parse_objectives
from perftui.domain.traffic.search import CapacitySearch
from perftui.store import Store
from perftui.tui.app import create_app
from perftui.tui.kit.traffic_chart import TrafficChart
from tests.factories import flat_latency, run_result, traffic
from tests.tui.test_compare_summary_honest import open_inference_tab, screen_lines
from tests.tui.test_detail import open_detail
from tests.tui.test_report_keys import accept_folder
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui

MEETS, FAILS = 10.0, 80.0
"""A search run's p99 (ms) under and over a 50 ms objective."""


def store_search(
    store: Store,
    name: str,
    p99s: dict[float, float],
    *,
    slo: str = "p99=50ms",
    batch: int = 1,
    closed_fps: float = 1800.0,
) -> None:
    """`name`'s capacity search as `perftui capacity` stores it: its benchmark with the
    objectives, a closed-loop run, then a run at each rate with that p99 (in order)."""
    project = store.ensure_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
    config = RunConfig(batch=batch)
    objectives = parse_objectives(slo)
    search = store.add_benchmark(
        BenchmarkRequest(project, (config,)), CapacitySearch(objectives, 60.0)
    )
    closed = run_result(
        closed_fps,
        config=config,
        latency_ms=flat_latency(0.5, p99=0.9),
        window_fps=tuple(closed_fps * (1 + 0.01 * (i % 3 - 1)) for i in range(12)),
        project=name,
        benchmark_id=search,
        iterations=1000,
        started_at="2026-11-29T09:00:00+00:00",
    )
    store.add_run(closed, np.linspace(0.4, 0.9, 1000))
    for n, (rate, p99) in enumerate(p99s.items()):
        store.add_run(
            run_result(
                rate * batch,
                config=RunConfig(batch=batch, rate=rate),
                traffic=traffic(rate, p99 / 4, p99),
                project=name,
                benchmark_id=search,
                started_at=f"2026-11-29T09:01:{n:02d}+00:00",
            )
        )
    store.end_search(search, CapacitySearch(objectives, 60.0).ending(None, 30.0))


async def test_the_traffic_tab_draws_and_says_the_capacity(app):
    async with app.run_test(size=(80, 24)) as pilot:
        # confirmed at 400/s (met twice), 800/s failed: the capacity is in [400, 800]
        store_search(app.store, "served", {200.0: MEETS, 800.0: FAILS, 400.0: MEETS})
        app.store.add_run(  # the same settings but the batch: another curve, not the capacity's
            run_result(800.0, config=RunConfig(batch=4, rate=200.0), project="served",
                       traffic=traffic(200.0, 2.0, 8.0), started_at="2026-11-29T08:00:00+00:00")
        )  # fmt: skip
        app.store.add_run(
            run_result(
                400.0,
                config=RunConfig(rate=400.0),
                traffic=traffic(400.0, MEETS / 4, MEETS),
                project="served",
                benchmark_id=app.store.project_benchmarks("served")[-1].id,
                started_at="2026-11-29T09:02:00+00:00",
            )
        )
        screen = await open_detail(app, pilot, "served")
        await pilot.press("9")
        await settled(pilot)
        line = screen.query_one("#traffic-capacity", Static)
        said = " ".join(str(line.render()).split())
        assert said.startswith("b1 "), said  # the configuration named
        assert "capacity 400/s (400–800) at p99 ≤ 50 ms" in said, said
        assert "closed-loop max 1,800/s (1,7" in said and ", stable)" in said, said
        assert said.endswith(", confirmed"), said
        assert line.region.right <= 80 and line.region.bottom < 24 and line.region.height >= 1
        head = str(screen.query_one("#traffic-head", Static).render())
        assert "b1" in head and "b4" not in head, head  # opens on the capacity's curve
        chart = screen.query_one("#chart-traffic", TrafficChart)
        assert (chart.objective_ms, chart.capacity) == (50.0, 400.0)
        await pilot.press("f")  # the other curve: the objective still, no capacity on it
        await settled(pilot)
        assert "b4" in str(screen.query_one("#traffic-head", Static).render())
        assert (chart.objective_ms, chart.capacity) == (50.0, None)


async def test_without_a_capacity_search_the_tab_says_nothing_of_one(app):
    async with app.run_test(size=(80, 24)) as pilot:
        app.store.ensure_project(Project("open", "/models/open.onnx", "openvino", "CPU"))
        app.store.add_run(
            run_result(200.0, config=RunConfig(rate=200.0), traffic=traffic(200.0, 2.0, 8.0),
                       project="open", started_at="2026-11-29T08:00:00+00:00")
        )  # fmt: skip
        screen = await open_detail(app, pilot, "open")
        await pilot.press("9")
        await settled(pilot)
        assert not screen.query_one("#traffic-capacity", Static).display
        chart = screen.query_one("#chart-traffic", TrafficChart)
        assert (chart.objective_ms, chart.capacity) == (None, None)


async def summary_lines(tmp_path: Path, services, store: Store) -> tuple[list[str], object]:
    """The compare summary's Inference tab of fp32 and int8 (their closed-loop runs), as
    lines of text at 80x24, and the capacities the screen read."""
    runs = [[r for r in store.runs(n) if r.config.rate is None] for n in ("fp32", "int8")]
    c = compare_projects("fp32", runs[0], "int8", runs[1], stat="p99")
    app = create_app(store.path, services)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_inference_tab(pilot, app, c)
        return screen_lines(app), app.screen.state.capacity()


async def test_the_compare_summary_gives_capacity_b_over_a(tmp_path, services):
    store = Store(tmp_path / "db.json")
    store_search(store, "fp32", {200.0: MEETS, 800.0: FAILS, 400.0: MEETS})
    store_search(store, "int8", {400.0: MEETS, 1600.0: FAILS, 800.0: MEETS}, closed_fps=3000.0)
    lines, ratio = await summary_lines(tmp_path, services, store)
    shown = "\n".join(lines)
    assert "A fp32: 400 [400, 800] (not confirmed, its runs noisy)" in shown, shown
    assert "B int8: 800 [800, 1,600] (not confirmed, its runs noisy)" in shown, shown
    assert "capacity B/A 2.00 (1.00-4.00;" in shown, shown  # 800/800 to 1600/400
    assert "capacity (requests/s, b1" in shown and "under p99 ≤ 50 ms" in shown, shown
    for said in ratio_lines(ratio, ("fp32", "int8")):  # the CLI's words, cut only by the width
        assert said.strip()[:70] in shown, said


async def test_the_compare_summary_says_why_capacities_are_not_compared(tmp_path, services):
    store = Store(tmp_path / "db.json")
    store_search(store, "fp32", {200.0: MEETS, 800.0: FAILS})
    store_search(store, "int8", {400.0: MEETS, 1600.0: FAILS}, slo="p99=20ms")
    lines, _ = await summary_lines(tmp_path, services, store)
    shown = " ".join(" ".join(lines).split())
    assert "no B/A: A's capacity is under p99 ≤ 50 ms, B's under p99 ≤ 20 ms" in shown, shown
    assert "capacity B/A" not in shown, shown


async def test_the_detail_s_report_carries_the_capacity_as_the_cli_s_does(app, tmp_path):
    async with app.run_test(size=(80, 24)) as pilot:
        store_search(app.store, "served", {200.0: MEETS, 800.0: FAILS})
        await open_detail(app, pilot, "served")
        await pilot.press("e")
        await accept_folder(pilot)
        md = tmp_path / "reports" / "perftui-report-served.md"
        await wait_for(pilot, md.is_file)
        assert "Capacity under p99 ≤ 50 ms: 200 requests/s" in md.read_text()
