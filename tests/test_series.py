"""Chart series from stored runs: scaling, baseline, throughput bars, live ticks."""

from __future__ import annotations

import threading

from perftui.domain.charts.series import (
    LiveSeries,
    Scaling,
    baseline,
    batches,
    latency_bars,
    model_summary,
    scalings,
    short_label,
    throughput_bars,
)
from perftui.domain.records import LatencyStats, RunConfig, RunResult
from tests.factories import run_result


def stats(median: float) -> LatencyStats:
    return LatencyStats(
        median * 0.8, median, median, median * 1.2, median * 1.5, median * 2, 0.1, 0.01
    )


def run(batch: int, threads: int, fps: float, when: str, status: str = "ok", **cfg) -> RunResult:
    return run_result(
        fps,
        config=RunConfig(batch=batch, threads=threads, **cfg),
        status=status,
        latency_ms=stats(1000 * batch / fps) if status == "ok" else None,
        id=f"{batch}-{threads}-{when}",
        started_at=f"2025-01-01T00:00:{when}+00:00",
    )


RUNS = [
    run(1, 1, 100, "01"),
    run(1, 2, 180, "02"),
    run(4, 1, 300, "03"),
    run(4, 2, 500, "04"),
    run(1, 4, 250, "05"),
    run(1, 2, 190, "06"),  # newer run at the same point wins
    run(1, 8, 0, "07", status="failed"),
]


def test_short_label_shows_only_what_differs_from_defaults():
    assert short_label(RunConfig(batch=4, threads=2)) == "b4 t2"
    assert short_label(RunConfig(batch=1, threads=0)) == "b1 t:auto"
    label = short_label(RunConfig(1, 2, streams=2, requests=4, hint="throughput", api="async"))
    assert label == "b1 t2 s2 r4 async"


def at(runs: list[RunResult], axis: str, value: int) -> list[Scaling]:
    """The scaling series along `axis` whose other axis is held at `value`."""
    return [s for s in scalings(runs, axis) if s.fixed_value == value]


def test_axes_values_come_from_successful_runs_only():
    assert batches(RUNS) == [1, 4]
    assert [s.fixed_value for s in scalings(RUNS, "batch")] == [1, 2, 4]


def test_thread_scaling_at_fixed_batch_uses_the_newest_run_per_point():
    (scaling,) = at(RUNS, "threads", 1)
    assert [p.x for p in scaling.points] == [1, 2, 4]
    assert [p.throughput_fps for p in scaling.points] == [100, 190, 250]
    assert scaling.title == "threads scaling at batch 1"
    assert scaling.points[1].latency_ms == stats(1000 / 190).median


def test_batch_scaling_at_fixed_threads():
    (scaling,) = at(RUNS, "batch", 2)
    assert [(p.x, p.throughput_fps) for p in scaling.points] == [(1, 190), (4, 500)]
    assert at(RUNS, "batch", 99) == []


def test_scaling_keeps_runs_with_the_same_other_settings():
    runs = [
        run(1, 1, 100, "01"),
        run(1, 2, 150, "02", hint="throughput", api="async"),
        run(1, 4, 200, "03", hint="throughput", api="async"),
    ]
    series = {s.settings: [p.x for p in s.points] for s in at(runs, "threads", 1)}
    assert series == {"s:auto r:auto sync": [1], "s:auto r:auto async": [2, 4]}


def test_baseline_and_latency_bars():
    chosen = baseline(RUNS, 1, 2)
    assert chosen is not None and chosen.throughput_fps == 190
    assert baseline(RUNS, 8, 8) is None
    labels = [label for label, _ in latency_bars(chosen)]
    assert labels == ["min", "median", "mean", "p90", "p99", "max"]


def test_throughput_bars_oldest_first_with_distinct_labels():
    bars = throughput_bars(RUNS, limit=3)
    assert bars == [("b4 t2", 500), ("b1 t4", 250), ("b1 t2", 190)]
    all_bars = throughput_bars(RUNS)
    assert [label for label, _ in all_bars].count("b1 t2") == 1
    assert "b1 t2 #2" in [label for label, _ in all_bars]
    assert len(all_bars) == 6  # the failed run has no bar


def test_model_summary_reads_resolved_threads_and_isa():
    base = run(4, 0, 400, "09")
    r = RunResult(
        config=base.config,
        throughput_fps=400,
        latency_ms=stats(10),
        started_at=base.started_at,
        resolved={
            "threads": 8,
            "streams": 2,
            "requests": 2,
            "environment": {
                "isa": ["avx2", "avx512f"],
                "cpu_model": "Test CPU",
                "openvino": "2025.0",
            },
        },
    )
    s = model_summary(r, "openvino")
    assert s.settings == (
        ("batch", "4"),
        ("threads", "auto (8)"),
        ("streams", "2"),
        ("requests", "2"),
    )
    assert s.isa == ("avx2", "avx512f") and s.cpu == "Test CPU" and s.engine_version == "2025.0"
    assert s.ms_per_batch == 10 and s.items_per_s == 400
    failed = model_summary(RUNS[-1])
    assert failed.ms_per_batch is None and failed.items_per_s is None


def test_live_series_offsets_runs_on_one_time_axis_and_thins_points():
    live = LiveSeries(max_points=10)
    live.start(0, "b1")
    for i in range(1, 5):
        live.add(0, i * 0.25, 100.0 + i, 2.0)
    live.start(1, "b4")
    live.add(1, 0.25, 300.0, 5.0)
    lines = live.snapshot()
    assert [line.label for line in lines] == ["b1", "b4"]
    assert lines[1].xs == (1.25,)
    for i in range(50):
        live.add(1, 0.25 * (i + 2), 300.0, 5.0)
    assert len(live.snapshot()[1].xs) <= 10
    xs = live.snapshot()[1].xs
    assert list(xs) == sorted(xs) and xs[-1] == 1.0 + 0.25 * 51


def test_live_series_is_safe_across_threads():
    live = LiveSeries(max_points=50)
    live.start(0, "b1")

    def produce() -> None:
        for i in range(2000):
            live.add(0, i * 0.001, 1.0, 1.0)

    thread = threading.Thread(target=produce)
    thread.start()
    versions = set()
    while thread.is_alive():
        versions.add(live.version)
        live.snapshot()
    thread.join(60)
    assert not thread.is_alive()
    assert live.version >= 2000 and len(live.snapshot()[0].xs) <= 50
