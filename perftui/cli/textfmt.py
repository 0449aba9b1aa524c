"""Plain-text tables and number formats for the CLI (readable, stable, no colour)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from perftui.domain.cells import cell_width, ljust, rjust
from perftui.domain.measurement.context import model_is_int8, precision_run, runs_notes
from perftui.domain.measurement.memory import runs_peak_text
from perftui.domain.model.shapes import shapes_text
from perftui.domain.records import Project, RunResult
from perftui.domain.units import ms, spread_text

if TYPE_CHECKING:
    from perftui.domain.measurement.figures import ConfigGroup, Known, Samples
    from perftui.domain.measurement.uncertainty import Interval
    from perftui.domain.model.model_info import ModelInfo
    from perftui.domain.traffic.figures import TrafficFigures


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int] | None = None
) -> str:
    """A fixed-width table (widths in terminal cells); columns in `right` are right-aligned
    (numbers)."""
    right = right or set()
    widths = [cell_width(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], cell_width(cell))

    def line(cells: Sequence[str]) -> str:
        parts = [
            rjust(cell, widths[i]) if i in right else ljust(cell, widths[i])
            for i, cell in enumerate(cells)
        ]
        return "  ".join(parts).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(row) for row in rows)
    return "\n".join(out)


def num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def with_interval(value: float | None, interval: Interval | None, digits: int = 1) -> str:
    """A throughput with its interval: '812.3 ±3%'."""
    return "-" if value is None else num(value, digits) + spread_text(interval)


def ms_with_interval(value: float | None, interval: Interval | None) -> str:
    """A latency with its interval: '1.234 ±2%'."""
    return "-" if value is None else ms(value) + spread_text(interval)


RUN_HEADERS = (
    "#",
    "config",
    "ran",
    "rep",
    "status",
    "verdict",
    "iters",
    "fps",
    "median ms",
    "p90 ms",
    "p99 ms",
    "first ms",
    "peak MiB",
    "compile MiB",
)


def _status(group: ConfigGroup) -> str:
    statuses = [run.status for run in group.runs]
    if len(set(statuses)) == 1:
        return statuses[0]
    return f"{len(group.ok_runs)}/{len(statuses)} ok"


def group_row(index: int, group: ConfigGroup, int8: bool = False) -> list[str]:
    """One configuration: a single run, or its repetitions combined (of an INT8 model when
    `int8`)."""
    figures = group.figures

    def stat(name: str) -> str:
        return ms_with_interval(group.latency_ms(name), figures.latency.get(name))

    return [
        str(index),
        group.config.label(),
        precision_run(group.runs, int8),
        f"{len(group.runs)}x" if len(group.runs) > 1 else "1",
        _status(group),
        figures.verdict.status,
        str(sum(run.iterations for run in group.runs)),
        with_interval(figures.throughput_fps, figures.throughput) if group.ok_runs else "-",
        stat("median"),
        stat("p90"),
        stat("p99"),
        ms(group.first_inference_ms),
        runs_peak_text(run.memory for run in group.ok_runs) if group.ok_runs else "-",
        runs_peak_text((run.memory for run in group.runs), compile=True),
    ]


def runs_table(
    runs: Sequence[RunResult],
    samples: Samples = lambda _id: None,
    project: Project | None = None,
    known: Known = lambda _run: None,
) -> str:
    """The runs, one row per configuration (repetitions combined), numbered in the order
    they started (runs of one second in the order given: as measured), each figure with its
    95 % interval (`known`'s, else computed from `samples`); under a run, one line of
    reasons when it is not stable and one per note on its measurement context."""
    from perftui.domain.measurement.cost import COST_HEADER, cost_ci_text, group_cost, runs_price
    from perftui.domain.measurement.figures import group_runs
    from perftui.domain.measurement.verdict import STABLE

    runs = sorted(runs, key=lambda run: run.started_at or "")
    groups = group_runs(runs, samples, known)
    int8 = model_is_int8(runs, project.notes if project else {})
    rows = [group_row(i, group, int8) for i, group in enumerate(groups, 1)]
    headers: tuple[str, ...] = RUN_HEADERS
    right = {0, 3, 6, 7, 8, 9, 10, 11, 12, 13}
    if runs_price(runs) is not None:  # a priced machine: the cost beside the throughput
        headers = (*RUN_HEADERS[:8], COST_HEADER, *RUN_HEADERS[8:])
        costs = [
            cost_ci_text(group_cost(g), g.figures.throughput, runs_price(g.ok_runs)) for g in groups
        ]
        rows = [[*row[:8], cost, *row[8:]] for row, cost in zip(rows, costs, strict=True)]
        right = {0, 3, *range(6, 15)}
    text = table(headers, rows, right=right)
    lines = []
    for i, group in enumerate(groups, 1):
        verdict = group.figures.verdict
        if verdict.status != STABLE and verdict.reasons:
            lines.append(f"  #{i} {verdict.status}: " + "; ".join(verdict.reasons))
        lines += [f"  #{i} note: {note}" for note in runs_notes(group.runs, int8)]
    traffic = traffic_table(groups)
    return "\n".join([text, *lines, *([traffic] if traffic else [])])


TRAFFIC_HEADERS = (
    "#",
    "config",
    "verdict",
    "offered /s",
    "achieved /s",
    "median ms",
    "p90 ms",
    "p99 ms",
    "queue ms",
    "service ms",
    "late p99 ms",
    "kept up",
)


def kept_up(traffic: TrafficFigures) -> str:
    """Whether an open-loop run's engine and scheduler kept up, in a word or two (the
    verdict's line under the table says why not)."""
    said = [
        *(["saturated"] if traffic.is_saturated else []),
        *([] if traffic.schedule_kept else ["schedule not kept"]),
    ]
    return ", ".join(said) or "yes"


def traffic_table(groups: Sequence[ConfigGroup]) -> str:
    """The open-loop runs (a configuration with a rate), one row per run numbered as the
    runs table's configurations (#2.1 for its first repetition when it has several), with
    the run's verdict (its reasons are the runs table's lines): offered and achieved rates,
    the latencies from each request's scheduled arrival with their intervals, the queue's
    and the service's medians and the scheduler's lateness; empty when no run had a rate."""
    rows = []
    for i, group in enumerate(groups, 1):
        for run, figures in zip(group.runs, group.members, strict=True):
            t = run.traffic
            if t is None:
                continue

            def stat(name: str, t: TrafficFigures = t) -> str:
                found = t.latency.get(name)
                return ms_with_interval(found.value if found else None, found)

            rows.append(
                [
                    str(i) if len(group.runs) == 1 else f"{i}.{run.repetition + 1}",
                    group.config.label(),
                    figures.verdict.status,
                    num(t.offered_rate, 1),
                    with_interval(t.achieved_rate, t.achieved),
                    stat("median"),
                    stat("p90"),
                    stat("p99"),
                    ms(t.queue_median_ms),
                    ms(t.service_median_ms),
                    ms(t.lateness_p99_ms),
                    kept_up(t),
                ]
            )
    if not rows:
        return ""
    head = "open loop: latency from each request's scheduled arrival, queueing included"
    return "\n".join(["", head, table(TRAFFIC_HEADERS, rows, right=set(range(3, 11)))])


def flops_line(info: ModelInfo) -> str:
    """'FLOPs (2 x MACs) at input_ids[1,128]: 22.347 G (+ 0.2 G cheap ops)', or what is
    unknown and why."""
    shapes = shapes_text(info.flops_shapes)
    unknown = [n for n in info.unknown_flops if not n.cheap]
    head = f"FLOPs (2 x MACs) at {shapes}"
    text = f"{head}: {info.flops / 1e9:.3f} G (+ {info.cheap_flops / 1e9:.3f} G cheap ops)"
    if unknown and not info.flops:
        text = f"{head}: unknown"
    if unknown:
        text += (
            f"; {len(unknown)} {unknown[0].op_type}-like nodes have shapes that could not be"
            " inferred"
        )
        if info.dynamic:
            text += ": bind the dynamic dimensions with --shape (e.g. seq=128)"
    return text


def model_info_text(info: ModelInfo) -> str:
    """`perftui inspect` for a person: tensors, operators, size and the heaviest nodes."""

    def shape(dims: Sequence[int | str]) -> str:
        return "[" + ",".join(str(d) for d in dims) + "]"

    lines = [f"{info.path} ({info.format})", "", "inputs:"]
    lines += [f"  {t.name}: {t.dtype} {shape(t.shape)}" for t in info.inputs]
    lines += ["outputs:"]
    lines += [f"  {t.name}: {t.dtype} {shape(t.shape)}" for t in info.outputs]
    lines += [
        "",
        f"parameters: {info.parameters:,} ({info.parameter_bytes / 1e6:.2f} MB)",
        flops_line(info),
        "",
        "operators:",
    ]
    counts = sorted(info.op_counts.items(), key=lambda kv: (-kv[1], kv[0]))
    lines += [f"  {op}: {count}" for op, count in counts]
    heavy = sorted(info.node_flops, key=lambda n: -n.flops)[:10]
    if heavy:
        lines += ["", "heaviest nodes:"]
        rows = [
            [n.name, n.op_type, f"{n.flops / 1e6:,.1f}", f"{n.flops / max(info.flops, 1):.1%}"]
            for n in heavy
        ]
        heavy_table = table(("node", "op", "MFLOPs", "share"), rows, right={2, 3})
        lines += ["  " + row for row in heavy_table.splitlines()]
    return "\n".join(lines)
