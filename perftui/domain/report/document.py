"""A shareable report of a project or of a comparison, as a document of plain parts (lines,
tables, bar and scatter charts) built from the stored records. One document, two renderings
(perftui.domain.report.render: Markdown for a code host, one self-contained HTML file), so
`perftui report` and the dashboard's report key say the same thing in both.

The figures are perftui.domain.measurement.figures' (95 % intervals, verdicts) and the comparison
perftui.domain.compare's: the report computes nothing of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perftui.domain.charts.series import short_label
from perftui.domain.compare import Comparison, Side
from perftui.domain.compare.environments import environment_differences
from perftui.domain.compare.pairing import APART
from perftui.domain.measurement.cost import cost_text, group_cost, runs_price
from perftui.domain.measurement.figures import Samples, group_runs
from perftui.domain.records import Project, RunResult
from perftui.domain.report.blocks import (
    ci_text,
    configurations,
    environment_section,
    fps_text,
    layer_type_table,
    runs_table,
    scatter_points,
    throughput_bars,
)
from perftui.domain.report.capacity import capacity_section
from perftui.domain.report.parts import Block, Report, Scatter, Section, Table
from perftui.domain.traffic.stored import StoredCapacity


def project_report(
    project: Project,
    runs: Sequence[RunResult],
    samples: Samples,
    int8: Mapping[str, Sequence[str]] | None = None,
    capacity: StoredCapacity | None = None,
) -> Report:
    """The project's summary: model, machine, every configuration with its intervals and
    verdict, throughput bars, latency against throughput, and the newest profile by type.
    `int8`: a quantized project's lines on how it was made and its accuracy, by name;
    `capacity`: its newest capacity search, with the traffic curve."""
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
        blocks.append(throughput_bars("Throughput", [(0, "", g) for g in groups]))
        blocks.append(
            Scatter(
                "Latency against throughput",
                "median latency (ms)",
                "throughput (items/s)",
                tuple(scatter_points(groups, 0)),
                (project.name,),
            )
        )
    layers = layer_type_table(runs)
    if layers is not None:
        blocks.append(layers)
    return Report(
        f"perftui report: {project.name}",
        (head,)
        + ((Section("INT8 accuracy", accuracy),) if accuracy else ())
        + (environment_section(runs, project.engine), Section("Results", (), tuple(blocks)))
        + (() if capacity is None else (capacity_section(project.name, capacity, samples),)),
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
    for side, group in zip(Side, c.groups, strict=True):
        run = c.run(side)
        if run is not None:
            repeats = len(group.runs) if group is not None else 1
            combined = f", {repeats} repetitions combined" if repeats > 1 else ""
            lines.append(
                f"{side.value} compared: {short_label(run.config)} (run {run.id[:8]}{combined})"
            )
    verdicts = [found.text for found in (c.throughput, c.latency) if found is not None]
    if c.alternated is not None:  # the verdict to trust first, each said what it is of
        lines.append(c.alternated.text)
        verdicts = [f"{APART}: " + "; ".join(verdicts)] if verdicts else []
    lines += verdicts
    lines += _machines_lines(c)
    if c.memory is not None:
        lines.append(c.memory.text)
    if c.max_memory_mib is not None:
        lines.append(f"Memory limit for the sweet spot: peak ≤ {c.max_memory_mib:g} MiB")
    if c.threshold_ms is not None:
        if (best := c.sweet) is not None:
            repeats = len(best.group.runs)
            lines.append(
                f"Sweet spot at {c.stat} latency ≤ {c.threshold_ms:g} ms: "
                f"{c.name(best.side)} {short_label(best.group.config)}, "
                f"{fps_text(best.throughput_fps)}{ci_text(best.throughput)} items/s at "
                f"{best.latency_ms:.3g}{ci_text(best.latency, '{:.3g}')} ms ({c.stat})"
                + (f", {repeats} repetitions combined" if repeats > 1 else "")
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
        for point in scatter_points(groups[side], i, c.stat, marks[side])
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
        throughput_bars("Inference time: throughput of the compared runs", compared),
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
