"""Two projects' capacities (perftui.domain.traffic.stored) side by side: B/A with an
interval, only like for like (the same objectives and configuration), else why not.

A capacity is a bracket, [the highest rate that met, the lowest that failed], not a figure
with a 95 % interval, so B/A is bounded conservatively: from B's lowest over A's highest to
B's highest over A's lowest. An end a bracket leaves open (no failing rate found above it)
leaves that end of B/A open (None). `ratio_lines` says it in words, the one wording of the
CLI and the compare screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from perftui.domain.measurement.verdict import INVALID
from perftui.domain.settings import differing
from perftui.domain.traffic.stored import StoredCapacity
from perftui.domain.traffic.wording import bracket_text, rate_text, verdict_text

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


def both_capacities(a: StoredCapacity | None, b: StoredCapacity | None) -> CapacityRatio | None:
    """Two projects' newest capacities (`latest_capacity`) side by side; None unless both
    have one (a project never searched says nothing)."""
    return None if a is None or b is None else capacity_ratio(a, b)


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


def _side_text(side: str, project: str, stored: StoredCapacity) -> str:
    found = stored.capacity
    if found.rate is None:
        return f"{side} {project}: no rate met"
    state = "confirmed" if found.confirmed else "not confirmed"
    return (
        f"{side} {project}: {rate_text(found.rate)} {bracket_text(found.rate, found.hi)} ({state},"
        f" {verdict_text(stored.verdict, reasons=False)})"
    )


def _invalid(ratio: CapacityRatio) -> list[str]:
    """ "B's (other processes used 60% of the CPUs)" for each side whose capacity rests on a
    run whose verdict is invalid."""
    sides = (("A", ratio.a), ("B", ratio.b))
    return [
        f"{side}'s ({'; '.join(s.verdict.reasons)})"
        for side, s in sides
        if s.verdict is not None and s.verdict.status == INVALID
    ]


def ratio_lines(ratio: CapacityRatio, names: tuple[str, str]) -> list[str]:
    """The two capacities in words, as `perftui compare` prints them and the compare screen
    shows them: the objectives and configuration, each side's, then B/A or why not."""
    lines = [
        f"capacity (requests/s, {ratio.a.config.label()}) under {ratio.a.search.label}:",
        f"  {_side_text('A', names[0], ratio.a)}",
        f"  {_side_text('B', names[1], ratio.b)}",
    ]
    if ratio.value is None:
        lines.append(f"  no B/A: {ratio.why_not}")
    else:
        lo = "?" if ratio.lo is None else f"{ratio.lo:.2f}"
        hi = "?" if ratio.hi is None else f"{ratio.hi:.2f}"
        lines.append(f"  capacity B/A {ratio.value:.2f} ({lo}-{hi}; {HOW})")
        invalid = _invalid(ratio)
        if invalid:
            lines.append(
                f"  B/A is not to be trusted: it rests on invalid runs, {' and '.join(invalid)}"
            )
    return lines
