"""Two projects whose configurations were measured several times each (issue 40, items 3 and
5): one repetition of a configuration is lucky, so a sweet spot or a "cheapest" picked run by
run differs from the one picked configuration by configuration, repetitions combined."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from perftui.domain.records import Project, RunResult
from perftui.store import Store
from tests.tui.compare_data import run, stats

PRICE = 0.5
"""Per hour, recorded with every run: cost is the price over the throughput."""
THRESHOLD = 10.0
"""Median ms: B's b4 has one repetition under it (9 ms), its mean over it (11 ms)."""


def repeats(
    project: str, bench: str, batch: int, fps: list[float], medians: list[float] | None = None
) -> list[RunResult]:
    """One benchmark's repetitions of a configuration, priced, with steady windows."""
    found = []
    for i, value in enumerate(fps):
        measured = run(project, 10 * batch + i, batch, 0, value)
        if medians is not None:
            measured = replace(measured, latency_ms=stats(medians[i]))
        env = {**measured.resolved["environment"], "price_per_hour": PRICE}
        found.append(
            replace(
                measured,
                benchmark_id=bench,
                repetition=i,
                resolved={**measured.resolved, "environment": env},
                window_fps=tuple(value * (1 + 0.005 * (k % 3 - 1)) for k in range(12)),
            )
        )
    return found


A_RUNS = [
    *repeats("fp32", "bench-a", 1, [2809.0, 2700.0, 2650.0, 2690.0, 2690.0]),  # 2,707.8
    *repeats("fp32", "bench-a", 2, [2750.0, 2745.0, 2755.0, 2750.0, 2750.0]),  # 2,750
]
B_RUNS = [
    *repeats("int8", "bench-b", 1, [1000.0, 1010.0, 990.0]),
    *repeats("int8", "bench-b", 4, [5000.0, 5000.0, 5000.0], [9.0, 12.0, 12.0]),
]
"""Run by run, B's b4 (5,000/s at 9 ms) under 10 ms, else A's lucky b1 round (2,809/s), is
the best; configuration by configuration, A's b2 (2,750/s, all at or under 10 ms)."""


def store_both(path: Path) -> Store:
    store = Store(path)
    for name in ("fp32", "int8"):
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
    store.add_runs([(r, None) for r in [*A_RUNS, *B_RUNS]])
    return store
