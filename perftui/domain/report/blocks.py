"""A report's blocks built from a project's runs: its machine, a table of its configurations
with their intervals and verdicts, throughput bars, latency against throughput points, the
newest profile by layer type. perftui.domain.report.document puts them together."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from perftui.domain import units
from perftui.domain.charts.series import short_label
from perftui.domain.measurement.context import precision_run
from perftui.domain.measurement.cost import COST_HEADER, cost_text, group_cost, runs_price
from perftui.domain.measurement.figures import ConfigGroup, Figures
from perftui.domain.measurement.memory import runs_peak_text
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.model.profile import latest_profiled, layer_type_summary
from perftui.domain.records import RunResult
from perftui.domain.report.parts import Bar, Bars, Point, Section, Table
from perftui.domain.settings import SETTINGS


def ci_text(interval: Interval | None, fmt: str = "{:.1f}") -> str:
    """' (12.1–13.4)': an interval as a report writes it after its figure."""
    if interval is None:
        return ""
    return f" ({fmt.format(interval.lo)}–{fmt.format(interval.hi)})"


def fps_text(value: float | None) -> str:
    """Items per second with a thousands separator, or a dash."""
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
        fps_text(f.throughput_fps if group.ok_runs else None) + ci_text(f.throughput),
        units.ms(median, missing="—") + ci_text(f.latency.get("median"), "{:.3g}"),
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
    parts = [s.report(getattr(c, s.name)) for s in SETTINGS if s.report]
    return ", ".join([p for p in parts if p] + [f"ran {precision_run(group.runs)}"])


def configurations(groups: Sequence[ConfigGroup]) -> str:
    """'6 configuration(s)', and in how many benchmarks when some were measured again."""
    configs = len({g.config for g in groups})
    again = f", measured in {len(groups)} benchmark groups" if len(groups) > configs else ""
    return f"{configs} configuration(s){again}"


def runs_table(title: str, groups: Sequence[ConfigGroup]) -> Table:
    """A row per configuration and benchmark; a configuration measured in several
    benchmarks says when each ran, so no two rows read the same."""
    labels = group_labels(groups)
    headers: tuple[str, ...] = (*RUN_HEADERS, "Verdict")
    right = frozenset({3, 4, 5, 6, 7})
    rows = tuple(_group_row(g, _settings(g), labels[id(g)]) for g in groups)
    if any(runs_price(g.runs) is not None for g in groups):  # the cost beside the throughput
        headers, right = (*headers[:5], COST_HEADER, *headers[5:]), frozenset(range(3, 9))
        costs = [cost_text(group_cost(g)).replace("-", "—") for g in groups]
        rows = tuple((*row[:5], cost, *row[5:]) for row, cost in zip(rows, costs, strict=True))
    return Table(title, headers, rows, right, frozenset({len(headers) - 1}))


def throughput_bars(title: str, groups: Sequence[tuple[int, str, ConfigGroup]]) -> Bars:
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


def scatter_points(
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


def layer_type_table(runs: Sequence[RunResult], limit: int = 12) -> Table | None:
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
