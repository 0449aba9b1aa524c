"""Comparing two projects (A and B): the sweet spot under a latency threshold, the layer-type
table side by side, and the kernel-level join of every layer of both versions.

Pure functions over stored records, shared by `perftui compare` and the dashboard.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from perftui.domain.errors import InputError
from perftui.domain.profile import LayerTypeRow, layer_type_summary
from perftui.domain.records import LayerProfile, Project, RunConfig, RunResult
from perftui.domain.series import short_label
from perftui.domain.summary import ProjectSummary

LATENCY_STATS = ("median", "p90", "p99")


def run_latency(run: RunResult, stat: str) -> float | None:
    """The run's latency statistic in ms, or None for a run without measurements."""
    if stat not in LATENCY_STATS:
        raise ValueError(f"unknown latency statistic {stat!r}; one of {', '.join(LATENCY_STATS)}")
    if run.status != "ok" or run.latency_ms is None:
        return None
    return float(getattr(run.latency_ms, stat))


@dataclass(frozen=True)
class Candidate:
    """A run offered to the sweet-spot search, with the side ('A' or 'B') it belongs to."""

    side: str
    run: RunResult


@dataclass(frozen=True)
class SweetSpot:
    side: str
    run: RunResult
    latency_ms: float
    stat: str


def sweet_spot(
    candidates: Iterable[Candidate], threshold_ms: float, stat: str = "median"
) -> SweetSpot | None:
    """The run with the highest throughput whose latency is at or under the threshold.

    Ties on throughput go to the lower latency, then to side A, then to the smaller run id,
    so the answer never depends on the order of the input. None when no run qualifies."""
    best: tuple[tuple[float, float, str, str], SweetSpot] | None = None
    for candidate in candidates:
        latency = run_latency(candidate.run, stat)
        if latency is None or latency > threshold_ms:
            continue
        key = (-candidate.run.throughput_fps, latency, candidate.side, candidate.run.id)
        if best is None or key < best[0]:
            best = (key, SweetSpot(candidate.side, candidate.run, latency, stat))
    return best[1] if best else None


@dataclass(frozen=True)
class LayerTypeComparison:
    """One layer type in both versions; None where the type does not occur in that version."""

    type: str
    a: LayerTypeRow | None
    b: LayerTypeRow | None

    @property
    def delta_ms(self) -> float:
        return (self.b.time_ms if self.b else 0.0) - (self.a.time_ms if self.a else 0.0)


TYPE_SORT_KEYS = ("type", "a_time", "b_time", "a_share", "b_share", "delta")


def compare_layer_types(
    a: Sequence[LayerProfile], b: Sequence[LayerProfile], sort: str = "a_time"
) -> list[LayerTypeComparison]:
    """The Workbench's Performance Summary: per layer type, time, share and layers per
    precision in A and B. Sorted by one of TYPE_SORT_KEYS, most time first by default."""
    rows_a = {row.type: row for row in layer_type_summary(a)}
    rows_b = {row.type: row for row in layer_type_summary(b)}
    rows = [LayerTypeComparison(t, rows_a.get(t), rows_b.get(t)) for t in {*rows_a, *rows_b}]
    return sort_layer_types(rows, sort)


def sort_layer_types(
    rows: Sequence[LayerTypeComparison], key: str, descending: bool | None = None
) -> list[LayerTypeComparison]:
    """Names ascend and figures descend unless `descending` says otherwise."""
    if key not in TYPE_SORT_KEYS:
        raise ValueError(f"unknown sort key {key!r}; one of {', '.join(TYPE_SORT_KEYS)}")
    if key == "type":
        return sorted(rows, key=lambda r: r.type.casefold(), reverse=bool(descending))

    def value(row: LayerTypeComparison) -> float:
        if key == "delta":
            return abs(row.delta_ms)
        side = row.a if key.startswith("a_") else row.b
        if side is None:
            return -1.0
        return side.time_ms if key.endswith("time") else side.share

    ordered = sorted(rows, key=lambda r: r.type.casefold())
    return sorted(ordered, key=value, reverse=descending is not False)


def distribution(
    rows: Sequence[LayerTypeComparison], included: set[str] | None = None
) -> list[tuple[str, float, float]]:
    """(type, share in A, share in B) of the included types, shares renormalised over them,
    for the distribution bar chart; all types when `included` is None."""
    chosen = [r for r in rows if included is None or r.type in included]
    total_a = sum(r.a.time_ms for r in chosen if r.a) or 1.0
    total_b = sum(r.b.time_ms for r in chosen if r.b) or 1.0
    return [
        (r.type, (r.a.time_ms if r.a else 0.0) / total_a, (r.b.time_ms if r.b else 0.0) / total_b)
        for r in chosen
    ]


# --- kernel level ---------------------------------------------------------------------------

_SUFFIXES = re.compile(
    r"(_quant|_token_\d+|_output_0|/WithoutBiases|/fused\w*|_fused\w*)+$", re.IGNORECASE
)


def normalised_name(name: str) -> str:
    """A layer name without the suffixes engines add when they fuse or quantise a node."""
    return _SUFFIXES.sub("", name)


@dataclass(frozen=True)
class LayerPair:
    """One row of the kernel-level table: a layer of A and/or its twin in B."""

    name: str
    a: LayerProfile | None
    b: LayerProfile | None
    matched_by: str = ""
    """'name', 'original name', 'normalised name' or 'scope'; '' when only one side has it."""

    @property
    def presence(self) -> str:
        """'both', 'a_only' or 'b_only'."""
        if self.a and self.b:
            return "both"
        return "a_only" if self.a else "b_only"

    @property
    def time_a(self) -> float | None:
        return self.a.time_ms if self.a else None

    @property
    def time_b(self) -> float | None:
        return self.b.time_ms if self.b else None

    @property
    def delta_ms(self) -> float | None:
        """B minus A; None unless the layer ran in both."""
        if self.a is None or self.b is None:
            return None
        return self.b.time_ms - self.a.time_ms

    @property
    def ratio(self) -> float | None:
        """B / A; None unless both ran and A took measurable time."""
        if self.a is None or self.b is None or self.a.time_ms <= 0:
            return None
        return self.b.time_ms / self.a.time_ms

    @property
    def executed_in(self) -> str:
        """Which versions actually executed the layer: 'both', 'a', 'b' or 'neither'."""
        ran_a = self.a is not None and self.a.status == "executed"
        ran_b = self.b is not None and self.b.status == "executed"
        return {(True, True): "both", (True, False): "a", (False, True): "b"}.get(
            (ran_a, ran_b), "neither"
        )


def scopes(layer: LayerProfile) -> set[str]:
    """The name scopes ('block3/pw' of 'block3/pw/Conv') of a layer and its original nodes."""
    return {n.rsplit("/", 1)[0] for n in (layer.name, *layer.original_names) if "/" in n}


def _related_types(a: str, b: str) -> bool:
    """Same operator, or one a variant of the other (FullyConnected / ...QuantizedLegacy)."""
    return a.startswith(b) or b.startswith(a)


def join_layers(a: Sequence[LayerProfile], b: Sequence[LayerProfile]) -> list[LayerPair]:
    """Every layer of both versions, paired by name, then by original (pre-fusion) names,
    then by normalised name, then by a shared name scope and related type (an engine that
    folds BatchNorm into a Conv may rename the Conv but keeps the scope of the nodes it
    fused). Each layer is used once; A's order first, B-only layers after."""
    exact = {layer.name: i for i, layer in enumerate(b)}
    by_original: dict[str, int] = {}
    by_normalised: dict[str, int] = {}
    by_scope: dict[str, list[int]] = {}
    for i, layer in enumerate(b):
        for original in layer.original_names:
            by_original.setdefault(original, i)
        by_normalised.setdefault(normalised_name(layer.name), i)
        for scope in scopes(layer):
            by_scope.setdefault(scope, []).append(i)

    def candidates(layer: LayerProfile) -> Iterable[tuple[int | None, str, str]]:
        yield exact.get(layer.name), "name", layer.name
        yield by_original.get(layer.name), "original name", layer.name
        for original in layer.original_names:
            yield exact.get(original), "original name", original
            yield by_original.get(original), "original name", original
        normalised = normalised_name(layer.name)
        yield by_normalised.get(normalised), "normalised name", normalised
        for scope in sorted(scopes(layer)):
            for i in by_scope.get(scope, ()):
                if _related_types(layer.type, b[i].type):
                    yield i, "scope", scope

    used: set[int] = set()
    pairs: list[LayerPair] = []
    for layer in a:
        found = next((c for c in candidates(layer) if c[0] is not None and c[0] not in used), None)
        if found is None:
            pairs.append(LayerPair(layer.name, layer, None))
        else:
            index, how, key = found
            assert index is not None
            used.add(index)
            pairs.append(LayerPair(key, layer, b[index], how))
    pairs += [LayerPair(layer.name, None, layer) for i, layer in enumerate(b) if i not in used]
    return pairs


LAYER_SORT_KEYS = ("delta", "time_a", "time_b", "ratio", "name", "type")


def filter_pairs(pairs: Sequence[LayerPair], min_delta_ms: float = 0.0) -> list[LayerPair]:
    """Pairs whose |delta| is at least the threshold; layers in only one version always stay."""
    return [p for p in pairs if p.delta_ms is None or abs(p.delta_ms) >= min_delta_ms]


def sort_pairs(
    pairs: Sequence[LayerPair], key: str = "delta", reverse: bool = False
) -> list[LayerPair]:
    """'delta' sorts by |delta| (one-sided layers by their time), figures descend, names ascend;
    `reverse` turns the order round."""
    if key not in LAYER_SORT_KEYS:
        raise ValueError(f"unknown sort key {key!r}; one of {', '.join(LAYER_SORT_KEYS)}")
    if key == "name":
        return sorted(pairs, key=lambda p: p.name.casefold(), reverse=reverse)
    if key == "type":
        return sorted(
            pairs,
            key=lambda p: ((p.a or p.b).type.casefold(), p.name),  # type: ignore[union-attr]
            reverse=reverse,
        )

    def value(pair: LayerPair) -> float:
        if key == "delta":
            return (
                abs(pair.delta_ms)
                if pair.delta_ms is not None
                else (pair.time_a or pair.time_b or 0)
            )
        found = getattr(pair, key)
        return -1.0 if found is None else float(found)

    return sorted(pairs, key=value, reverse=not reverse)


# --- two projects ---------------------------------------------------------------------------


def pick_run(
    runs: Sequence[RunResult], threshold_ms: float | None, stat: str, pinned: str | None = None
) -> RunResult | None:
    """A side's representative run: the pinned run (by id) when it is among the successful
    runs, else its own sweet spot under the threshold, else (no run under it, or no
    threshold) its highest-throughput successful run."""
    ok = [r for r in runs if run_latency(r, stat) is not None]
    if pinned is not None:
        found = next((r for r in ok if r.id == pinned), None)
        if found is not None:
            return found
    if threshold_ms is not None:
        spot = sweet_spot((Candidate("A", r) for r in ok), threshold_ms, stat)
        if spot is not None:
            return spot.run
    return max(ok, key=lambda r: (r.throughput_fps, r.id), default=None)


@dataclass(frozen=True)
class Comparison:
    a_name: str
    b_name: str
    a: RunResult | None
    b: RunResult | None
    threshold_ms: float | None
    stat: str
    sweet: SweetSpot | None
    layer_types: list[LayerTypeComparison]
    layers: list[LayerPair]
    notes: list[str]


def compare_projects(
    a_name: str,
    a_runs: Sequence[RunResult],
    b_name: str,
    b_runs: Sequence[RunResult],
    threshold_ms: float | None = None,
    stat: str = "median",
    a_pinned: str | None = None,
    b_pinned: str | None = None,
) -> Comparison:
    """Everything `perftui compare` and the compare screen show, from the selected runs.

    A pinned run id makes that run its side's compared run; the sweet spot never depends on
    pins (it is searched among all the given runs)."""
    candidates = [Candidate("A", r) for r in a_runs] + [Candidate("B", r) for r in b_runs]
    sweet = sweet_spot(candidates, threshold_ms, stat) if threshold_ms is not None else None
    a = pick_run(a_runs, threshold_ms, stat, a_pinned)
    b = pick_run(b_runs, threshold_ms, stat, b_pinned)
    notes = []
    if threshold_ms is not None and sweet is None:
        notes.append(f"no selected run has a {stat} latency at or under {threshold_ms:g} ms")
    for side, name, run in (("A", a_name, a), ("B", b_name, b)):
        if run is None:
            notes.append(f"{side} ({name}) has no successful run to compare")
        elif not run.layers:
            notes.append(
                f"{side} ({name}): the compared run has no layer profile; benchmark it again "
                "with per-layer profiling (`perftui bench ... --profile`) to compare layers"
            )
    layers_a = list(a.layers or ()) if a else []
    layers_b = list(b.layers or ()) if b else []
    profiled = bool(layers_a and layers_b)
    return Comparison(
        a_name=a_name,
        b_name=b_name,
        a=a,
        b=b,
        threshold_ms=threshold_ms,
        stat=stat,
        sweet=sweet,
        layer_types=compare_layer_types(layers_a, layers_b) if profiled else [],
        layers=sort_pairs(join_layers(layers_a, layers_b)) if profiled else [],
        notes=notes,
    )


# --- the compare screen: defaults, chart series, inference time, layer detail ---------------


def default_projects(
    summaries: Sequence[tuple[Project, ProjectSummary]],
) -> tuple[str | None, str | None]:
    """(A, B) to compare when nobody chose: B is the project with the best throughput (as the
    Workbench does); A is the project B was optimized from when it exists, else the next
    best project with successful runs, else the first other project by name."""
    if not summaries:
        return None, None
    names = [project.name for project, _ in summaries]
    measured = [(s.best_throughput_fps, p.name) for p, s in summaries if s.best_throughput_fps]
    measured.sort(key=lambda item: (-(item[0] or 0.0), item[1]))
    b = measured[0][1] if measured else names[0]
    source = next((p.source_project for p, _ in summaries if p.name == b), None)
    if source in names and source != b:
        return source, b
    others = [name for _, name in measured if name != b] + [n for n in names if n != b]
    return (others[0] if others else None), b


def default_threshold(runs: Iterable[RunResult], stat: str = "median") -> float | None:
    """A starting threshold every given successful run meets: the highest latency rounded up
    to two significant digits (10.11 -> 11, 3.95 -> 4). None without a successful run."""
    values = [v for r in runs if (v := run_latency(r, stat)) is not None]
    if not values:
        return None
    top = max(values)
    if top <= 0:
        return 1.0
    step = 10.0 ** (math.floor(math.log10(top)) - 1)
    return round(math.ceil(top / step - 1e-9) * step, 9)


def parse_min_delta(text: str) -> float:
    """The kernel-level delta filter in ms: empty means none (0), else a number >= 0."""
    cleaned = str(text).strip()
    if not cleaned:
        return 0.0
    try:
        value = float(cleaned)
    except ValueError:
        raise InputError(
            f"delta filter {cleaned!r} is not a number; give milliseconds >= 0, e.g. 0.05"
        ) from None
    if not value >= 0 or value == float("inf"):
        raise InputError(f"delta filter {value:g} is out of range; give milliseconds >= 0")
    return value


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

    side: str
    label: str
    """The settings the runs share, e.g. 't:auto' or 't2 thr async'."""
    points: tuple[ChartPoint, ...]


@dataclass(frozen=True)
class ChartMark:
    """A labelled point: the compared runs ('A', 'B') and the sweet spot ('*' added)."""

    side: str
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


def config_lines(side: str, runs: Iterable[RunResult], stat: str) -> list[ChartLine]:
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


def run_marks(c: Comparison) -> dict[tuple[str, str], str]:
    """(side, run id) -> its label on the chart and in the runs table: 'A', 'B', 'A*', 'B*',
    or '*' for a sweet spot that is not a compared (pinned away) run."""
    marks: dict[tuple[str, str], str] = {}
    if c.a is not None:
        marks["A", c.a.id] = "A"
    if c.b is not None:
        marks["B", c.b.id] = "B"
    if c.sweet is not None:
        key = (c.sweet.side, c.sweet.run.id)
        marks[key] = marks.get(key, "") + SWEET_MARK
    return marks


def compare_chart(
    c: Comparison, a_runs: Iterable[RunResult], b_runs: Iterable[RunResult]
) -> CompareChart:
    """The setup chart: each project's configuration lines and the labelled points."""
    lines = config_lines("A", a_runs, c.stat) + config_lines("B", b_runs, c.stat)
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
    side: str
    project: str
    run_label: str
    value: float | None


@dataclass(frozen=True)
class InferenceTime:
    """The Inference Time tab: one bar per compared run and B's value over A's."""

    metric: str
    unit: str
    bars: tuple[InferenceBar, InferenceBar]
    ratio: float | None
    """B / A; None when either side has no value (or A's is zero)."""


def inference_time(c: Comparison, metric: str = "throughput") -> InferenceTime:
    """Throughput (items/s) or latency (the comparison's statistic, ms) of A and B."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; one of {', '.join(METRICS)}")

    def bar(side: str, name: str, run: RunResult | None) -> InferenceBar:
        if run is None:
            return InferenceBar(side, name, "", None)
        value = run.throughput_fps if metric == "throughput" else run_latency(run, c.stat)
        return InferenceBar(side, name, short_label(run.config), value)

    a, b = bar("A", c.a_name, c.a), bar("B", c.b_name, c.b)
    ratio = b.value / a.value if a.value and b.value is not None else None
    unit = "items/s" if metric == "throughput" else f"ms ({c.stat})"
    return InferenceTime(metric, unit, (a, b), ratio)


@dataclass(frozen=True)
class DetailRow:
    """One attribute of a layer in A and in B ('' where that version has no such layer)."""

    label: str
    a: str
    b: str
    differs: bool


@dataclass(frozen=True)
class LayerDetail:
    """The kernel-level detail pane of one joined layer."""

    name: str
    matched_by: str
    executed_in: str
    rows: tuple[DetailRow, ...]
    notice: str | None
    """Set when a version did not execute the layer, in plain words."""


def layer_detail(pair: LayerPair, a_name: str = "A", b_name: str = "B") -> LayerDetail:
    """Type, exec type, precision, status, names and original names of a layer in each
    version, which attributes differ, and a notice when a version did not execute it."""

    fields: list[tuple[str, Callable[[LayerProfile], str]]] = [
        ("type", lambda x: x.type),
        ("exec type", lambda x: x.exec_type),
        ("precision", lambda x: x.precision or "?"),
        ("status", lambda x: x.status),
        ("name", lambda x: x.name),
        ("original", lambda x: ", ".join(x.original_names)),
    ]
    rows = []
    for label, get in fields:
        a = "" if pair.a is None else get(pair.a)
        b = "" if pair.b is None else get(pair.b)
        rows.append(DetailRow(label, a, b, pair.presence == "both" and a != b))
    sides = {"A": (a_name, pair.a), "B": (b_name, pair.b)}
    notices = []
    for side, (name, layer) in sides.items():
        other = "B" if side == "A" else "A"
        if layer is None:
            notices.append(
                f"Not executed in {side} ({name}): no layer of {side} matches this layer of "
                f"{other} (fused into another layer, removed, or renamed beyond recognition)."
            )
        elif layer.status != "executed":
            notices.append(
                f"Not executed in {side} ({name}): the engine reports it as "
                f"{layer.status.replace('_', ' ')}."
            )
    return LayerDetail(
        name=pair.name,
        matched_by=pair.matched_by,
        executed_in=pair.executed_in,
        rows=tuple(rows),
        notice=" ".join(notices) or None,
    )
