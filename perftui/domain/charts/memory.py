"""Chart data for memory: each run's peak in its timed window beside its configuration
(the project detail's "memory by run" chart)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from perftui.domain.charts.series import bar_runs, run_label
from perftui.domain.records import RunResult


def memory_bars(
    runs: Sequence[RunResult], limit: int = 12, label_of: Callable[[RunResult], str] = run_label
) -> list[tuple[str, float]]:
    """The timed window's peak (MiB) of the newest `limit` successful runs whose peak is
    known, oldest first, labelled as the throughput bars are ('#2' for a repeated label)."""
    seen: dict[str, int] = {}
    bars = []
    for run in bar_runs(runs, limit):
        peak = run.memory.window_peak_mib if run.memory else None
        if peak is None:
            continue
        label = label_of(run)
        seen[label] = seen.get(label, 0) + 1
        bars.append((label if seen[label] == 1 else f"{label} #{seen[label]}", peak))
    return bars
