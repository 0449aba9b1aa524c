"""Two projects' capacities (perftui.domain.traffic.stored) side by side: B/A with an
interval, only like for like (the same objectives and configuration), else why not.

A capacity is a bracket, [the highest rate that met, the lowest that failed], not a figure
with a 95 % interval, so B/A is bounded conservatively: from B's lowest over A's highest to
B's highest over A's lowest. An end a bracket leaves open (no failing rate found above it)
leaves that end of B/A open (None).
"""

from __future__ import annotations

from dataclasses import dataclass

from perftui.domain.settings import differing
from perftui.domain.traffic.stored import StoredCapacity

HOW = "conservative: B's lowest over A's highest to B's highest over A's lowest"


@dataclass(frozen=True)
class CapacityRatio:
    a: StoredCapacity
    b: StoredCapacity
    value: float | None
    """B's capacity over A's; None where they are not alike (`why_not` says why) or one has
    none."""
    lo: float | None = None
    hi: float | None = None
    """None: open (a bracket without an upper end)."""
    why_not: str = ""


def capacity_ratio(a: StoredCapacity, b: StoredCapacity) -> CapacityRatio:
    if not a.search.same_objectives(b.search):
        return CapacityRatio(
            a, b, None, why_not=f"A's capacity is under {a.search.label}, B's under "
            f"{b.search.label}: search both under the same objectives to compare them",
        )  # fmt: skip
    settings = differing(a.config, b.config)
    if settings:
        return CapacityRatio(
            a, b, None, why_not=f"the capacities are of different configurations "
            f"({', '.join(settings)}): search both with the same settings to compare them",
        )  # fmt: skip
    ra, rb = a.capacity, b.capacity
    missing = [side for side, found in (("A", ra), ("B", rb)) if found.rate is None]
    if missing:
        return CapacityRatio(
            a, b, None, why_not=f"{' and '.join(missing)} met the objectives at no rate searched"
        )
    assert ra.rate is not None and rb.rate is not None
    return CapacityRatio(
        a,
        b,
        rb.rate / ra.rate,
        lo=None if ra.hi is None else rb.rate / ra.hi,
        hi=None if rb.hi is None else rb.hi / ra.rate,
    )
