"""How sure a per-layer time is: a profile is one pass, and a layer's time in it moves from
one pass to the next (a preempted kernel, a cold cache), so one pass's 3.86 ms against
another's 0.259 ms may be noise. Where the compared configuration was measured in several
repetitions with a profile each, a layer's time is their mean with its 95 % t-interval
(domain.measurement.uncertainty); with one profile it has none, and is said to have none.
A layer difference counts as found only by what its intervals leave of it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from perftui.domain.measurement.uncertainty import Interval, mean_interval, unknown_interval
from perftui.domain.records import RunResult


def layer_times(runs: Sequence[RunResult]) -> dict[str, Interval]:
    """Per executed layer name, its time over the profiled `runs` (a configuration's
    repetitions): the mean with its t-interval from two profiles on, the one time with an
    unknown interval (`±?`) from one."""
    times: dict[str, list[float]] = {}
    for run in runs:
        for layer in run.layers or ():
            if layer.status == "executed":
                times.setdefault(layer.name, []).append(layer.time_ms)
    return {
        name: mean_interval(values) or unknown_interval(values[0]) for name, values in times.items()
    }


def profiles(runs: Sequence[RunResult]) -> int:
    """How many of `runs` have a layer profile."""
    return sum(1 for run in runs if run.layers)


def delta_beyond_noise(a: Interval | None, b: Interval | None) -> float | None:
    """How much of B's time less A's stands beyond both intervals: |B - A| less the two
    half-widths combined in quadrature, 0 where the intervals cannot tell them apart; None
    where a side has no bounded interval (one profile): nothing is known of its noise."""
    if a is None or b is None or not a.bounded or not b.bounded:
        return None
    half = math.hypot(max(a.value - a.lo, a.hi - a.value), max(b.value - b.lo, b.hi - b.value))
    return max(0.0, abs(b.value - a.value) - half)


def evidence_key(a: Interval | None, b: Interval | None) -> tuple[int, float]:
    """Where a layer in both versions ranks when the largest changes come first, so that
    noise never tops the list: the changes beyond noise by what is left of them, then those
    whose noise is unknown by their size, then those within noise; a layer of one version
    alone (`a` or `b` None) by its time, after the changes beyond noise."""
    if a is None or b is None:
        one = a or b
        return 1, -(one.value if one is not None else 0.0)
    beyond = delta_beyond_noise(a, b)
    if beyond is None:
        return 1, -abs(b.value - a.value)
    return (0, -beyond) if beyond > 0 else (2, -abs(b.value - a.value))
