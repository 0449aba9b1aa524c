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


def summarize(runs: Sequence[RunResult]) -> ProjectSummary:
    ok = [r for r in runs if r.status == "ok" and r.latency_ms is not None]
    return ProjectSummary(
        runs=len(runs),
        ok_runs=len(ok),
        best_throughput_fps=max((r.throughput_fps for r in ok), default=None),
        best_latency_ms=min((r.latency_ms.median for r in ok if r.latency_ms), default=None),
        last_run_at=max((r.started_at for r in runs if r.started_at), default=None),
    )
