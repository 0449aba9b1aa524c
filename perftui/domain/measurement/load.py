"""How busy the machine was with other work while a run was timed.

The worker reads the CPU counters (perftui.bench.machine) before and after the timed window;
this record keeps the differences, and perftui.domain.measurement.verdict judges them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class CpuReading:
    """Cumulative counters at one instant, in seconds: every CPU's busy, idle and steal time
    (as /proc/stat counts them) and this process's own CPU time."""

    busy_s: float
    idle_s: float
    steal_s: float
    own_s: float


@dataclass(frozen=True)
class MachineLoad:
    """CPU time spent between two readings, in seconds summed over all CPUs."""

    total_s: float
    """All CPU time that passed (busy + idle + steal): wall time x CPUs."""
    busy_s: float
    own_s: float
    """Of `busy_s`, the measuring process's own (every engine thread included)."""
    steal_s: float
    """Time the hypervisor gave this machine's CPUs to other guests."""

    @classmethod
    def between(cls, before: CpuReading, after: CpuReading) -> MachineLoad:
        busy = after.busy_s - before.busy_s
        idle = after.idle_s - before.idle_s
        steal = after.steal_s - before.steal_s
        return cls(
            total_s=busy + idle + steal,
            busy_s=busy,
            own_s=after.own_s - before.own_s,
            steal_s=steal,
        )

    @property
    def others_share(self) -> float:
        """The share of all CPU time used by other processes (0..1)."""
        if self.total_s <= 0:
            return 0.0
        return min(1.0, max(0.0, self.busy_s - self.own_s) / self.total_s)

    @property
    def steal_share(self) -> float:
        return min(1.0, max(0.0, self.steal_s) / self.total_s) if self.total_s > 0 else 0.0

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MachineLoad:
        return cls(**{k: float(data.get(k, 0.0)) for k in cls.__dataclass_fields__})
