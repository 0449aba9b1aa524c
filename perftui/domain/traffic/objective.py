"""Latency objectives ('p99=50ms'): the bound a capacity is searched under."""

from __future__ import annotations

import math
from dataclasses import dataclass

from perftui.domain.errors import InputError
from perftui.domain.measurement.statistic import LATENCY_NAMES

UNITS_MS = {"s": 1000.0, "ms": 1.0, "us": 0.001}
"""The units a bound may be given in, as milliseconds."""
EXAMPLE = "e.g. p99=50ms or median=5ms,p99=20ms"


@dataclass(frozen=True)
class Objective:
    """A latency statistic (statistic.LATENCY_NAMES) that must stay at or under a bound."""

    statistic: str
    bound_ms: float

    @property
    def label(self) -> str:
        return f"{self.statistic} ≤ {self.bound_ms:g} ms"


def parse_objectives(text: str) -> tuple[Objective, ...]:
    """'p99=50ms,median=10ms' -> the objectives; InputError, one line, for anything else."""
    found: dict[str, Objective] = {}
    for part in text.split(","):
        name, equals, bound = (s.strip() for s in part.partition("="))
        if not equals or not name or not bound:
            raise InputError(f"objective {part.strip()!r} is not STATISTIC=BOUND; {EXAMPLE}")
        if name not in LATENCY_NAMES:
            raise InputError(
                f"objective statistic {name!r} is not known; give one of {', '.join(LATENCY_NAMES)}"
            )
        unit = bound.lstrip("0123456789.+-eE \t")
        number = bound[: len(bound) - len(unit)]
        if unit not in UNITS_MS:
            raise InputError(
                f"objective bound {bound!r} has no known unit; give one of {', '.join(UNITS_MS)}"
                f", {EXAMPLE}"
            )
        try:
            value = float(number)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value <= 0:
            raise InputError(f"objective bound {bound!r} is not a time above 0; {EXAMPLE}")
        if name in found:
            raise InputError(f"objective {name!r} is given twice; give each statistic once")
        found[name] = Objective(name, value * UNITS_MS[unit])
    return tuple(found.values())
