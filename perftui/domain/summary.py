"""Per-project figures derived from stored runs (best throughput, best latency, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perftui.domain.records import RunResult


@dataclass(frozen=True)
class ProjectSummary:
    runs: int
    ok_runs: int
    best_throughput_fps: float | None
    best_latency_ms: float | None
    """Lowest median latency among successful runs."""
    last_run_at: str | None
    best_throughput_run: str | None = None
    """The id of the run the best throughput came from (its verdict goes with the figure)."""
    best_latency_run: str | None = None
    """The id of the run the best latency came from."""


def summarize(runs: Sequence[RunResult]) -> ProjectSummary:
    ok = [r for r in runs if r.status == "ok" and r.latency_ms is not None]
    fastest = max(ok, key=lambda r: r.throughput_fps, default=None)
    quickest = min(ok, key=lambda r: r.latency_ms.median if r.latency_ms else 0.0, default=None)
    return ProjectSummary(
        runs=len(runs),
        ok_runs=len(ok),
        best_throughput_fps=fastest.throughput_fps if fastest else None,
        best_latency_ms=quickest.latency_ms.median if quickest and quickest.latency_ms else None,
        last_run_at=max((r.started_at for r in runs if r.started_at), default=None),
        best_throughput_run=fastest.id if fastest else None,
        best_latency_run=quickest.id if quickest else None,
    )
