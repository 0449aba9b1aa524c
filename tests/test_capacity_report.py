"""A stored capacity search (the store's write path for its end) read back into the
project's report: the traffic curve with the objective's line and the capacity marked."""

from __future__ import annotations

import numpy as np

from perftui.cli.report import build_report
from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult
from perftui.domain.report.parts import Report, Section
from perftui.domain.report.render import to_html, to_markdown
from perftui.domain.traffic.capacity import SearchPlan
from perftui.domain.traffic.objective import parse_objectives
from perftui.domain.traffic.search import CapacitySearch
from perftui.domain.traffic.stored import latest_capacity
from tests.test_capacity import Simulated

P99 = parse_objectives("p99=50ms")


def test_a_search_s_end_is_stored_and_its_capacity_is_in_the_report(store) -> None:
    project = store.ensure_project(Project("mn", "/models/mn.onnx", "openvino"))
    request = BenchmarkRequest(project, (RunConfig(),))
    matrix = store.add_benchmark(request)
    found = Simulated().search(P99, SearchPlan(start_rate=50.0, budget_s=600.0))
    search_id = store.add_benchmark(request, CapacitySearch(P99, 600.0))
    store.add_run(
        RunResult(
            config=RunConfig(), throughput_fps=99.0, project="mn", benchmark_id=search_id,
            iterations=500, duration_s=5.0, window_fps=(98.0, 99.0, 100.0, 99.5, 98.5),
            started_at="2026-11-29T09:00:00+00:00",
        ),
        np.full(500, 10.0),
    )  # fmt: skip
    for i, point in enumerate(found.curve):
        store.add_run(
            RunResult(
                config=RunConfig(rate=point.rate), traffic=point.figures, project="mn",
                benchmark_id=search_id, started_at=f"2026-11-29T09:{i + 1:02d}:00+00:00",
            )
        )  # fmt: skip
    assert not store.get_benchmark(search_id).capacity.ended
    store.end_search(search_id, CapacitySearch(P99, 600.0).ending(None, found.elapsed_s))

    benchmarks = store.project_benchmarks("mn")
    assert [b.id for b in benchmarks] == [matrix, search_id]  # the order kept, the matrix too
    assert benchmarks[0].capacity is None and benchmarks[1].capacity.ended
    stored = latest_capacity(benchmarks, store.runs("mn"), lambda r: store.figures(r.id))
    assert stored is not None
    assert (stored.capacity.rate, stored.capacity.hi, stored.capacity.confirmed) == (
        found.rate,
        found.hi,
        found.confirmed,
    )

    report = build_report(store, "mn", None)
    markdown = to_markdown(report)
    assert f"Capacity under p99 ≤ 50 ms: {found.rate:,.4g} requests/s" in markdown
    assert "Closed-loop maximum: 99 requests/s" in markdown
    assert f"capacity {found.rate:,.4g}/s; p99 ≤ 50 ms" in markdown
    html = to_html(report)
    assert html.count('class="threshold"') == 2  # the capacity's line and the objective's
    assert f">capacity {found.rate:,.4g}/s</text>" in html and ">p99 ≤ 50 ms</text>" in html


def test_a_project_without_a_search_has_no_capacity_section(store) -> None:
    project = store.ensure_project(Project("mn", "/models/mn.onnx", "openvino"))
    store.add_benchmark(BenchmarkRequest(project, (RunConfig(),)))
    assert "Capacity" not in to_markdown(build_report(store, "mn", None))


def test_a_chart_s_table_writes_rates_without_exponents() -> None:
    from perftui.domain.report.parts import Point, Scatter

    chart = Scatter("curve", "offered rate (requests/s)", "p99 (ms)",
                    (Point(1023.4, 5.0, "1,020/s"), Point(0.7341, 1.0, "x")), ("mn",))  # fmt: skip
    table = to_markdown(Report("r", (Section("s", (), (chart,)),)))
    assert "| 1,023 |" in table and "| 0.734 |" in table
