"""The statistics a run is judged by: the one list compare, tune, the gate and history use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Statistic:
    name: str
    higher_is_better: bool
    unit: str
    percentile: float | None = None
    """For a latency: the percentile of the request latencies it is (by nearest rank)."""

    @property
    def is_latency(self) -> bool:
        return not self.higher_is_better

    @property
    def title(self) -> str:
        """'throughput', 'p90 latency'."""
        return f"{self.name} latency" if self.is_latency else self.name


STATISTICS = (
    Statistic("throughput", True, "items/s"),
    Statistic("median", False, "ms", 50.0),
    Statistic("p90", False, "ms", 90.0),
    Statistic("p99", False, "ms", 99.0),
)
NAMES = tuple(s.name for s in STATISTICS)
LATENCY_NAMES = tuple(s.name for s in STATISTICS if s.is_latency)
_BY_NAME = {s.name: s for s in STATISTICS}


def statistic(name: str) -> Statistic:
    """The statistic called `name`; ValueError naming the choices otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown statistic {name!r}; one of {', '.join(NAMES)}") from None
