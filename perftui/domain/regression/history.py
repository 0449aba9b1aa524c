"""One configuration's figure across a project's benchmarks over time (`perftui history`):
each point with its 95 % interval, what changed in the environment between points, and the
change points, steps in the series beyond its noise (as asv finds and judges them).

A point is one benchmark's runs of the configuration, their repetitions combined
(perftui.domain.measurement.figures.ConfigGroup). Change points are found by binary segmentation on
the log of the figure: the split of a stretch whose step between the two sides' means is
largest against the noise (the scatter of the points about their side's mean, pooled, or the
points' own intervals where those are wider) is kept when its t statistic passes the
two-sided 95 % quantile divided among the stretch's possible splits (Bonferroni), the step
exceeds NOISE_FLOOR and each side holds LEAST_SIDE points; each side is then searched again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from perftui.domain.compare.environments import FIELDS
from perftui.domain.measurement.statistic import statistic
from perftui.domain.measurement.uncertainty import NOISE_FLOOR, Z_95, t_quantile

if TYPE_CHECKING:
    from perftui.domain.capabilities import Capabilities
    from perftui.domain.measurement.figures import ConfigGroup
    from perftui.domain.measurement.verdict import Verdict
    from perftui.domain.records import RunConfig

WATCHED = ("Target", "CPU", "perftui", "Governor")
"""Environment fields whose change a history names (with the project's engine version, the
field its capabilities' `version_label` names)."""
ALPHA = 0.05
LEAST_SIDE = 2
"""Points on each side of a step at least: one point alone is an outlier until another
confirms it (a step at the newest point is named once the next benchmark agrees)."""


@dataclass(frozen=True)
class Point:
    """One benchmark's figure of the configuration."""

    date: str
    """When its first run started (ISO 8601)."""
    value: float
    lo: float | None
    hi: float | None
    runs: int
    benchmark_id: str
    verdict: Verdict
    """Its runs' verdict, repetitions combined: a figure is never shown without it."""
    environment: Mapping[str, Any] = field(default_factory=dict)
    changes: tuple[str, ...] = ()
    """What changed in the environment since the point before ("OpenVINO 2026.3 -> 2026.4")."""


@dataclass(frozen=True)
class ChangePoint:
    """A step in the series between points `index - 1` and `index`: after over before."""

    index: int
    ratio: float
    lo: float
    hi: float
    before: Point
    after: Point
    changes: tuple[str, ...]
    """What changed in the environment across the step (between its two points)."""

    def text(self, stat: str) -> str:
        """'throughput fell 12 % (8-15 %) between <date> and <date>: OpenVINO a -> b'."""
        name = statistic(stat).title
        rose = self.ratio > 1
        ends = sorted(abs(x - 1) * 100 for x in (self.lo, self.hi))
        size = f"{abs(self.ratio - 1) * 100:.0f} % ({ends[0]:.0f}-{ends[1]:.0f} %)"
        cause = "; ".join(self.changes) or "nothing recorded in the environment changed"
        return (
            f"{name} {'rose' if rose else 'fell'} {size} between {short_date(self.before.date)}"
            f" and {short_date(self.after.date)}: {cause}"
        )


@dataclass(frozen=True)
class History:
    config: RunConfig
    stat: str
    points: tuple[Point, ...]
    steps: tuple[ChangePoint, ...]


def short_date(iso: str) -> str:
    return iso[:16].replace("T", " ") if iso else "?"


def figure_of(group: ConfigGroup, stat: str) -> tuple[float, float | None, float | None] | None:
    """(value, lo, hi) of a group's statistic; None where it has no successful run."""
    if not group.ok_runs:
        return None
    if statistic(stat).higher_is_better:  # throughput
        interval = group.figures.throughput
        value: float | None = group.figures.throughput_fps
    else:
        interval = group.figures.latency.get(stat)
        value = interval.value if interval is not None else group.latency_ms(stat)
    if value is None or value <= 0:
        return None
    if interval is None or not interval.bounded or interval.lo <= 0:
        return value, None, None
    return value, interval.lo, interval.hi


def environment_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], engine: Capabilities
) -> tuple[str, ...]:
    """What differs between two runs' environments, of the fields a history watches."""
    watched = (*WATCHED[:2], engine.version_label, *WATCHED[2:])
    found = []
    for label, show in FIELDS:
        if label in watched and before and after and show(before) != show(after):
            found.append(f"{label} {show(before)} -> {show(after)}")
    return tuple(found)


def configurations(groups: Sequence[ConfigGroup]) -> list[tuple[RunConfig, int]]:
    """Each configuration with its number of points, the most measured first."""
    counts: dict[RunConfig, int] = {}
    for group in groups:
        if group.ok_runs:
            counts[group.config] = counts.get(group.config, 0) + 1
    return sorted(counts.items(), key=lambda item: -item[1])


def history(
    groups: Sequence[ConfigGroup], config: RunConfig, stat: str, engine: Capabilities
) -> History:
    """The configuration's points in time order and the change points among them."""
    points: list[Point] = []
    for group in groups:
        found = figure_of(group, stat) if group.config == config else None
        if found is None:
            continue
        env = next((r.resolved.get("environment") for r in group.ok_runs), None) or {}
        date = min(r.started_at for r in group.runs)
        benchmark = group.runs[0].benchmark_id
        verdict = group.figures.verdict
        points.append(Point(date, *found, len(group.ok_runs), benchmark, verdict, dict(env)))
    points.sort(key=lambda p: p.date)
    points = [
        p if i == 0 else _with_changes(p, points[i - 1], engine) for i, p in enumerate(points)
    ]
    steps = []
    for index, ratio, lo, hi in change_points([p.value for p in points], _own_se(points)):
        before, after = points[index - 1], points[index]
        changes = environment_changes(before.environment, after.environment, engine)
        steps.append(ChangePoint(index, ratio, lo, hi, before, after, changes))
    return History(config, stat, tuple(points), tuple(steps))


def _with_changes(point: Point, before: Point, engine: Capabilities) -> Point:
    return replace(
        point, changes=environment_changes(before.environment, point.environment, engine)
    )


def _own_se(points: Sequence[Point]) -> list[float]:
    """Each point's standard error on the log scale, from its interval (0 where unknown)."""
    return [
        math.log(p.hi / p.lo) / (2 * Z_95) if p.lo and p.hi and p.lo > 0 else 0.0 for p in points
    ]


def change_points(
    values: Sequence[float], own_se: Sequence[float] | None = None
) -> list[tuple[int, float, float, float]]:
    """(index of the first point after the step, after/before ratio, its 95 % interval) of
    each step beyond the noise (see the module's method), in order."""
    logs = [math.log(v) for v in values]
    se = list(own_se) if own_se is not None else [0.0] * len(logs)
    found: list[tuple[int, float, float, float]] = []

    def search(start: int, stop: int) -> None:
        best = _best_split(logs, se, start, stop)
        if best is None:
            return
        k, step, half = best
        search(start, k)
        found.append((k, math.exp(step), math.exp(step - half), math.exp(step + half)))
        search(k, stop)

    search(0, len(logs))
    return sorted(found)


def _best_split(
    logs: Sequence[float], se: Sequence[float], start: int, stop: int
) -> tuple[int, float, float] | None:
    """The split of logs[start:stop] that passes the test: (k, step, 95 % half-width)."""
    n = stop - start
    if n < 2 * LEAST_SIDE:
        return None
    best: tuple[float, int, float, float, int] | None = None
    own = sum(s * s for s in se[start:stop]) / n
    for k in range(start + LEAST_SIDE, stop - LEAST_SIDE + 1):
        left, right = logs[start:k], logs[k:stop]
        ml, mr = sum(left) / len(left), sum(right) / len(right)
        resid = sum((x - ml) ** 2 for x in left) + sum((x - mr) ** 2 for x in right)
        df = n - 2
        var = max(resid / df if df else 0.0, own)
        step_se = math.sqrt(var * (1 / len(left) + 1 / len(right)))
        stat = abs(mr - ml) / step_se if step_se > 0 else math.inf
        if best is None or stat > best[0]:
            best = (stat, k, mr - ml, step_se, df)
    assert best is not None
    stat, k, step, step_se, df = best
    if abs(step) <= math.log(1 + NOISE_FLOOR):
        return None
    if step_se > 0 and stat <= t_quantile(ALPHA / 2 / (n - 1), max(df, 1)):
        return None
    return k, step, t_quantile(ALPHA / 2, max(df, 1)) * step_se
