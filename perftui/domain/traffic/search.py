"""A capacity search as its benchmark keeps it: the objectives it searched under (stored when
it starts) and how it ended (stored when it ends). The capacity itself is not kept here: it
is computed again from the benchmark's runs (perftui.domain.traffic.stored), so every place
that shows it gets the same figure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from perftui.domain.traffic.objective import Objective


@dataclass(frozen=True)
class CapacitySearch:
    objectives: tuple[Objective, ...]
    budget_s: float
    ended: bool = False
    """False while it runs, and for a search whose process died before it ended."""
    stopped: str | None = None
    """Why it ended before confirming an answer (budget, limits, cancelled); None if it did."""
    elapsed_s: float | None = None

    def ending(self, stopped: str | None, elapsed_s: float) -> CapacitySearch:
        return replace(self, ended=True, stopped=stopped, elapsed_s=elapsed_s)

    def same_objectives(self, other: CapacitySearch) -> bool:
        return set(self.objectives) == set(other.objectives)

    @property
    def label(self) -> str:
        return ", ".join(o.label for o in self.objectives)

    def to_dict(self) -> dict[str, Any]:
        return {
            "objectives": [
                {"statistic": o.statistic, "bound_ms": o.bound_ms} for o in self.objectives
            ],
            "budget_s": self.budget_s,
            "ended": self.ended,
            "stopped": self.stopped,
            "elapsed_s": self.elapsed_s,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CapacitySearch:
        elapsed = data.get("elapsed_s")
        stopped = data.get("stopped")
        objectives = tuple(
            Objective(str(o["statistic"]), float(o["bound_ms"])) for o in data["objectives"]
        )
        if not objectives:
            raise ValueError("a capacity search without objectives")
        return cls(
            objectives=objectives,
            budget_s=float(data["budget_s"]),
            ended=bool(data.get("ended", False)),
            stopped=None if stopped is None else str(stopped),
            elapsed_s=None if elapsed is None else float(elapsed),
        )
