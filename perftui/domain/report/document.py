"""A shareable report of a project or of a comparison, as a document of plain parts (lines,
tables, bar and scatter charts) built from the stored records. One document, two renderings
(perftui.domain.report.render: Markdown for a code host, one self-contained HTML file), so
`perftui report` and the dashboard's report key say the same thing in both.

The figures are perftui.domain.measurement.figures' (95 % intervals, verdicts) and the comparison
perftui.domain.compare's: the report computes nothing of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from perftui.domain import units
from perftui.domain.charts.series import short_label
from perftui.domain.compare import Comparison, Side
from perftui.domain.compare.environments import environment_differences
from perftui.domain.measurement.context import ran_precisions
from perftui.domain.measurement.cost import COST_HEADER, cost_text, group_cost, runs_price
from perftui.domain.measurement.figures import ConfigGroup, Figures, Samples, group_runs
from perftui.domain.measurement.memory import runs_peak_text
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.model.profile import latest_profiled, layer_type_summary
from perftui.domain.records import Project, RunResult


@dataclass(frozen=True)
class Table:
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: frozenset[int] = frozenset()
    """Columns of figures (right-aligned)."""


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    interval: tuple[float, float] | None = None
    series: int = 0
    """0 for A (or the one project), 1 for B: the bar's colour and marker."""


@dataclass(frozen=True)
class Bars:
    title: str
    unit: str
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str
    series: int = 0
    mark: str = ""
    """'A', 'B' or 'sweet spot' for the points a comparison names."""


@dataclass(frozen=True)
class Scatter:
    title: str
    x_label: str
    y_label: str
    points: tuple[Point, ...]
    series: tuple[str, ...]
    threshold: float | None = None
    """A vertical line at this x (the latency threshold)."""


Block = Table | Bars | Scatter


@dataclass(frozen=True)
class Section:
    title: str
    lines: tuple[str, ...] = ()
    blocks: tuple[Block, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Report:
    title: str
    sections: tuple[Section, ...]


def _ci(interval: Interval | None, fmt: str = "{:.1f}") -> str:
    if interval is None:
        return ""
    return f" ({fmt.format(interval.lo)}–{fmt.format(interval.hi)})"


def _fps(value: float | None) -> str:
    return "—" if not value else f"{value:,.1f}"


def environment_section(runs: Sequence[RunResult], engine: str, title: str = "Machine") -> Section:
    """The recorded environment of the newest run that has one."""
    env: Mapping[str, Any] = next(
        (
            r.resolved["environment"]
            for r in sorted(runs, key=lambda r: r.started_at, reverse=True)
            if r.resolved.get("environment")
        ),
        {},
    )
    if not env:
        return Section(title, ("No environment recorded (no run yet).",))
    cores = env.get("physical_cores")
    logical = env.get("logical_cores")
    rows = [
        ("CPU", str(env.get("cpu_model") or "—")),
        ("Cores", f"{cores or '—'} physical, {logical or '—'} logical"),
        ("ISA", " ".join(env.get("isa") or ()) or "—"),
        (engine, str(env.get(engine) or "—")),
        ("perftui", str(env.get("perftui") or "—")),
        ("OS", str(env.get("os") or "—")),
    ]
    return Section(title, (), (Table("", ("", ""), tuple(rows)),))


def group_labels(groups: Sequence[ConfigGroup]) -> dict[int, str]:
    """Each group's label by id(): its configuration's, and when it ran where the
    configuration was measured in several benchmarks, so no two rows read the same."""
    seen = Counter(g.config for g in groups)
    labels = {}
    for g in groups:
        started = min(r.started_at for r in g.runs).replace("T", " ")[:19]
        again = f" ({started} UTC)" if seen[g.config] > 1 else ""
        labels[id(g)] = short_label(g.config) + again
    return labels


def _group_row(group: ConfigGroup, settings: str, label: str) -> tuple[str, ...]:
    f: Figures = group.figures
    median = group.latency_ms("median")
    p99 = group.latency_ms("p99")
    statuses = sorted({r.status for r in group.runs})
    return (
        label,
        settings,
        "/".join(statuses),
        str(len(group.runs)),
        _fps(f.throughput_fps if group.ok_runs else None) + _ci(f.throughput),
        units.ms(median, missing="—") + _ci(f.latency.get("median"), "{:.3g}"),
        units.ms(p99, missing="—"),
        runs_peak_text(r.memory for r in group.ok_runs).replace("?", "—"),
        f.verdict.status + (f": {'; '.join(f.verdict.reasons)}" if f.verdict.reasons else ""),
    )


RUN_HEADERS = (
    "Config",
    "Settings",
    "Status",
    "Reps",
    "items/s (95 % CI)",
    "median ms",
    "p99 ms",
    "peak MiB",
)


def _settings(group: ConfigGroup) -> str:
    c = group.config
    parts = [f"{c.api}", f"hint {c.hint}", f"streams {c.streams}", f"requests {c.requests}"]
    if c.precision:
        parts.append(f"asked {c.precision}")
    parts.append(f"ran {ran_precisions(group.runs)}")
    parts += [f"{name} {value}" for name, value in c.dims]
    return ", ".join(parts)


def configurations(groups: Sequence[ConfigGroup]) -> str:
    """'6 configuration(s)', and in how many benchmarks when some were measured again."""
    configs = len({g.config for g in groups})
    again = f", measured in {len(groups)} benchmark groups" if len(groups) > configs else ""
    return f"{configs} configuration(s){again}"


def runs_table(title: str, groups: Sequence[ConfigGroup]) -> Table:
    """A row per configuration and benchmark; a configuration measured in several
    benchmarks says when each ran, so no two rows read the same."""
    labels = group_labels(groups)
    headers, right = (*RUN_HEADERS, "Verdict"), frozenset({3, 4, 5, 6, 7})
    rows = tuple(_group_row(g, _settings(g), labels[id(g)]) for g in groups)
    if any(runs_price(g.runs) is not None for g in groups):  # the cost beside the throughput
        headers, right = (*headers[:5], COST_HEADER, *headers[5:]), frozenset(range(3, 9))
        costs = [cost_text(group_cost(g)).replace("-", "—") for g in groups]
        rows = tuple((*row[:5], cost, *row[5:]) for row, cost in zip(rows, costs, strict=True))
    return Table(title, headers, rows, right)


def _throughput_bars(title: str, groups: Sequence[tuple[int, str, ConfigGroup]]) -> Bars:
    bars = []
    labels = group_labels([g for _, _, g in groups])
    for series, prefix, g in groups:
        if not g.ok_runs:
            continue
        interval = g.figures.throughput
        bars.append(
            Bar(
                f"{prefix}{labels[id(g)]}",
                g.figures.throughput_fps,
                (interval.lo, interval.hi) if interval else None,
                series,
            )
        )
    return Bars(title, "items/s", tuple(bars))


def _points(
    groups: Sequence[ConfigGroup],
    series: int,
    stat: str = "median",
    marks: Mapping[str, str] | None = None,
) -> list[Point]:
    """A point per configuration with a successful run; `marks` (by run id) names those
    holding the runs a comparison names, and no other group of the same configuration."""
    marks = marks or {}
    labels = group_labels(groups)
    return [
        Point(
            latency,
            g.figures.throughput_fps,
            labels[id(g)],
            series,
            next((marks[r.id] for r in g.runs if r.id in marks), ""),
        )
        for g in groups
        if g.ok_runs and (latency := g.latency_ms(stat)) is not None
    ]


def _layer_types(runs: Sequence[RunResult], limit: int = 12) -> Table | None:
    profiled = latest_profiled(runs)
    if profiled is None or not profiled.layers:
        return None
    rows = layer_type_summary(profiled.layers)[:limit]
    return Table(
        f"Time by layer type (profile of {short_label(profiled.config)})",
        ("Layer type", "Time ms", "Share", "Layers", "Precisions"),
        tuple(
            (
                r.type,
                f"{r.time_ms:.3f}",
                f"{100 * r.share:.1f} %",
                str(r.layers),
                ", ".join(f"{p} {n}" for p, n in sorted(r.precisions.items())),
            )
            for r in rows
        ),
        frozenset({1, 2, 3}),
    )


def project_report(
    project: Project,
    runs: Sequence[RunResult],
    samples: Samples,
    int8: Mapping[str, Sequence[str]] | None = None,
) -> Report:
    """The project's summary: model, machine, every configuration with its intervals and
    verdict, throughput bars, latency against throughput, and the newest profile by type.
    `int8`: a quantized project's lines on how it was made and its accuracy, by name."""
    int8 = int8 or {}
    groups = group_runs(runs, samples)
    head = Section(
        "Project",
        (
            f"Model: {project.model}",
            f"Engine: {project.engine} on {project.device}",
            f"Runs: {len(runs)} of {configurations(groups)}; intervals are 95 %.",
        )
        + ((f"Made from: {project.source_project}",) if project.source_project else ()),
    )
    accuracy = tuple(int8.get(project.name, ()))
    blocks: list[Block] = [runs_table("Runs by configuration", groups)]
    if any(g.ok_runs for g in groups):
        blocks.append(_throughput_bars("Throughput", [(0, "", g) for g in groups]))
        blocks.append(
            Scatter(
                "Latency against throughput",
                "median latency (ms)",
                "throughput (items/s)",
                tuple(_points(groups, 0)),
                (project.name,),
            )
        )
    layers = _layer_types(runs)
    if layers is not None:
        blocks.append(layers)
    return Report(
        f"perftui report: {project.name}",
        (head,)
        + ((Section("INT8 accuracy", accuracy),) if accuracy else ())
        + (environment_section(runs, project.engine), Section("Results", (), tuple(blocks))),
    )


def _machines_lines(c: Comparison) -> list[str]:
    """How the compared runs' machines differ, and what each side's throughput costs."""
    lines = []
    a, b = c.run(Side.A), c.run(Side.B)
    if a is not None and b is not None:
        envs = [run.resolved.get("environment") or {} for run in (a, b)]
        if rows := environment_differences(envs[0], envs[1]):
            lines.append(
                "On different machines (B/A is theirs, not the models' alone): "
                + "; ".join(f"{row.label} {row.a} vs {row.b}" for row in rows)
            )
    for side, group in zip(Side, c.groups, strict=True):
        if group is not None and (cost := group_cost(group)) is not None:
            lines.append(
                f"{side.value} costs {cost_text(cost)} per million inferences"
                f" (at {runs_price(group.runs):g} per hour)"
            )
    return lines


def comparison_report(
    c: Comparison,
    projects: Mapping[Side, Project],
    runs: Mapping[Side, Sequence[RunResult]],
    samples: Samples,
    int8: Mapping[str, Sequence[str]] | None = None,
) -> Report:
    """A against B: the verdicts with their intervals, the sweet spot, both machines, both
    projects' configurations, the chart of both and the layer types side by side; an INT8
    side's accuracy against FP32 and its caution (`int8`, lines by project name)."""
    int8 = int8 or {}
    lines = [
        f"A: {c.a_name} ({projects[Side.A].engine} on {projects[Side.A].device}), "
        f"B: {c.b_name} ({projects[Side.B].engine} on {projects[Side.B].device})",
    ]
    for side in Side:
        run = c.run(side)
        if run is not None:
            lines.append(f"{side.value} compared: {short_label(run.config)} (run {run.id[:8]})")
    for found in (c.throughput, c.latency):
        if found is not None:
            lines.append(found.text)
    lines += _machines_lines(c)
    if c.memory is not None:
        lines.append(c.memory.text)
    if c.max_memory_mib is not None:
        lines.append(f"Memory limit for the sweet spot: peak ≤ {c.max_memory_mib:g} MiB")
    if c.threshold_ms is not None:
        if c.sweet is not None:
            lines.append(
                f"Sweet spot at {c.stat} latency ≤ {c.threshold_ms:g} ms: "
                f"{c.name(c.sweet.side)} {short_label(c.sweet.run.config)}, "
                f"{_fps(c.sweet.run.throughput_fps)} items/s at {c.sweet.latency_ms:.3g} ms"
            )
        else:
            lines.append(f"No run has a {c.stat} latency ≤ {c.threshold_ms:g} ms.")
    lines += list(c.notes)
    for side in Side:
        cautions = [line for line in int8.get(c.name(side), ()) if line.startswith("caution:")]
        lines += [f"{side.value} ({c.name(side)}) is INT8; {line}" for line in cautions]
    groups = {side: group_runs(runs[side], samples) for side in Side}
    marks: dict[Side, dict[str, str]] = {side: {} for side in Side}
    for side in Side:
        if (run := c.run(side)) is not None:
            marks[side][run.id] = side.value
    if c.sweet is not None:
        spot = c.sweet.run.id
        marks[c.sweet.side][spot] = ", ".join(
            filter(None, (marks[c.sweet.side].get(spot), "sweet spot"))
        )
    points = tuple(
        point
        for i, side in enumerate(Side)
        for point in _points(groups[side], i, c.stat, marks[side])
    )
    compared = [
        (i, f"{side.value} ", g) for i, side in enumerate(Side) if (g := c.groups[i]) is not None
    ]
    blocks: list[Block] = [
        Scatter(
            "Latency against throughput",
            f"{c.stat} latency (ms)",
            "throughput (items/s)",
            points,
            (c.a_name, c.b_name),
            c.threshold_ms,
        ),
        _throughput_bars("Inference time: throughput of the compared runs", compared),
        runs_table(f"A: {c.a_name}", groups[Side.A]),
        runs_table(f"B: {c.b_name}", groups[Side.B]),
    ]
    if c.layer_types:
        blocks.append(
            Table(
                "Performance summary by layer type (A vs B)",
                ("Layer type", "A ms", "B ms", "B − A ms"),
                tuple(
                    (
                        row.type,
                        f"{row.a.time_ms:.3f}" if row.a else "—",
                        f"{row.b.time_ms:.3f}" if row.b else "—",
                        f"{row.delta_ms:+.3f}",
                    )
                    for row in c.layer_types[:15]
                ),
                frozenset({1, 2, 3}),
            )
        )
    return Report(
        f"perftui report: {c.a_name} vs {c.b_name}",
        (
            Section("Comparison", tuple(lines)),
            *(
                Section(f"INT8 accuracy of {side.value} ({c.name(side)})", tuple(accuracy))
                for side in Side
                if (accuracy := int8.get(c.name(side)))
            ),
            Section("Results", (), tuple(blocks)),
            environment_section(
                runs[Side.A], projects[Side.A].engine, f"Machine of A ({c.a_name})"
            ),
            environment_section(
                runs[Side.B], projects[Side.B].engine, f"Machine of B ({c.b_name})"
            ),
        ),
    )
