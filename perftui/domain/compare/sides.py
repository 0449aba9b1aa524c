"""The two sides of a comparison and the latency figure both are judged by."""

from __future__ import annotations

from enum import Enum

from perftui.domain.measurement.statistic import LATENCY_NAMES
from perftui.domain.records import RunResult


class Side(str, Enum):
    """Project A (the reference, e.g. FP32) or project B (the candidate, e.g. INT8).

    A string, so 'A' and Side.A are equal and either keys the same dict entry."""

    A = "A"
    B = "B"

    def __str__(self) -> str:
        return self.value

    @property
    def other(self) -> Side:
        return Side.B if self is Side.A else Side.A


def run_latency(run: RunResult, stat: str) -> float | None:
    """The run's latency statistic in ms, or None for a run without measurements or whose
    source did not report that statistic."""
    if stat not in LATENCY_NAMES:
        raise ValueError(f"unknown latency statistic {stat!r}; one of {', '.join(LATENCY_NAMES)}")
    if run.status != "ok" or run.latency_ms is None:
        return None
    value = getattr(run.latency_ms, stat)
    return None if value is None else float(value)
