"""What the compare screens draw: each project's runs on the latency/throughput chart
(configuration lines, the compared runs and the sweet spot labelled) and the inference-time
bars of the compared runs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from perftui.domain.charts.series import short_label
from perftui.domain.compare.projects import Comparison
from perftui.domain.compare.sides import Side, run_latency
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.records import RunConfig, RunResult


@dataclass(frozen=True)
class ChartPoint:
    """One run on the latency (x) / throughput (y) chart."""

    run_id: str
    label: str
    """The run's settings, e.g. 'b4 t2'."""
    latency_ms: float
    throughput_fps: float


@dataclass(frozen=True)
class ChartLine:
    """The runs of one configuration line of a project: same settings but the batch size,
    ordered by batch size (then start time), joined on the chart."""

    side: Side
    label: str
    """The settings the runs share, e.g. 't:auto' or 't2 thr async'."""
    points: tuple[ChartPoint, ...]


@dataclass(frozen=True)
class ChartMark:
    """A labelled point: the compared runs ('A', 'B') and the sweet spot ('*' added)."""

    side: Side
    run_id: str
    text: str
    latency_ms: float
    throughput_fps: float
    sweet: bool


@dataclass(frozen=True)
class CompareChart:
    stat: str
    threshold_ms: float | None
    lines: tuple[ChartLine, ...]
    marks: tuple[ChartMark, ...]

    @property
    def points(self) -> list[ChartPoint]:
        return [point for line in self.lines for point in line.points]


SWEET_MARK = "*"


def line_label(config: RunConfig) -> str:
    """A configuration line's settings: the run label without the batch size."""
    return short_label(replace(config, batch=1)).split(" ", 1)[1]


def config_lines(side: Side, runs: Iterable[RunResult], stat: str) -> list[ChartLine]:
    """A project's successful runs grouped into configuration lines, ordered by label."""
    groups: dict[str, list[tuple[tuple[int, str, str], ChartPoint]]] = {}
    for run in runs:
        latency = run_latency(run, stat)
        if latency is None:
            continue
        point = ChartPoint(run.id, short_label(run.config), latency, run.throughput_fps)
        key = (run.config.batch, run.started_at, run.id)
        groups.setdefault(line_label(run.config), []).append((key, point))
    return [
        ChartLine(side, label, tuple(point for _, point in sorted(items, key=lambda i: i[0])))
        for label, items in sorted(groups.items(), key=lambda kv: kv[0].casefold())
    ]


def run_marks(c: Comparison) -> dict[tuple[Side, str], str]:
    """(side, run id) -> its label on the chart and in the runs table: 'A', 'B', 'A*', 'B*',
    or '*' for a sweet spot that is not a compared (pinned away) run."""
    marks: dict[tuple[Side, str], str] = {}
    for side in Side:
        run = c.run(side)
        if run is not None:
            marks[side, run.id] = side.value
    if c.sweet is not None:
        key = (c.sweet.side, c.sweet.run.id)
        marks[key] = marks.get(key, "") + SWEET_MARK
    return marks


def compare_chart(
    c: Comparison, a_runs: Iterable[RunResult], b_runs: Iterable[RunResult]
) -> CompareChart:
    """The setup chart: each project's configuration lines and the labelled points."""
    lines = config_lines(Side.A, a_runs, c.stat) + config_lines(Side.B, b_runs, c.stat)
    found = {(line.side, p.run_id): p for line in lines for p in line.points}
    marks = tuple(
        ChartMark(side, run_id, text, point.latency_ms, point.throughput_fps, SWEET_MARK in text)
        for (side, run_id), text in sorted(run_marks(c).items())
        if (point := found.get((side, run_id))) is not None
    )
    return CompareChart(c.stat, c.threshold_ms, tuple(lines), marks)


METRICS = ("throughput", "latency")


@dataclass(frozen=True)
class InferenceBar:
    side: Side
    project: str
    value: float | None
    interval: Interval | None = None
    """The 95 % interval of `value` (the compared configuration's repetitions combined, else
    the run's own); None where the samples give none."""


@dataclass(frozen=True)
class InferenceTime:
    """The Inference Time tab: one bar per compared run and B's value over A's."""

    metric: str
    unit: str
    bars: tuple[InferenceBar, InferenceBar]
    ratio: float | None
    """B / A; None when either side has no value (or A's is zero), or when they ran at
    different loads (Comparison.unlike)."""


def inference_time(c: Comparison, metric: str = "throughput") -> InferenceTime:
    """Throughput (items/s) or latency (the comparison's statistic, ms) of A and B."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; one of {', '.join(METRICS)}")

    def bar(side: Side) -> InferenceBar:
        run, group = c.run(side), c.groups[0 if side is Side.A else 1]
        if run is None:
            return InferenceBar(side, c.name(side), None)
        if group is None:  # a comparison made without figures
            value = run.throughput_fps if metric == "throughput" else run_latency(run, c.stat)
            return InferenceBar(side, c.name(side), value)
        if metric == "throughput":
            return InferenceBar(
                side, c.name(side), group.figures.throughput_fps, group.figures.throughput
            )
        return InferenceBar(
            side, c.name(side), group.latency_ms(c.stat), group.figures.latency.get(c.stat)
        )

    a, b = bar(Side.A), bar(Side.B)
    ratio = b.value / a.value if a.value and b.value is not None else None
    if c.unlike is not None:  # no B/A across loads
        ratio = None
    unit = "items/s" if metric == "throughput" else f"ms ({c.stat})"
    return InferenceTime(metric, unit, (a, b), ratio)
