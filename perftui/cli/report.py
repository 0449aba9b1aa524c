"""`perftui report A [B]`: a project's summary, or A compared with B, as Markdown or one
self-contained HTML file (perftui.domain.report.document builds it, report.render writes it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.cli.common import (
    Command,
    CommandFactory,
    Exit,
    open_store,
    output_path,
    unknown_project,
    write_output,
)

if TYPE_CHECKING:
    from perftui.domain.report.parts import Report
    from perftui.store.database import Store


def add_parsers(command: CommandFactory) -> None:
    report = command("report", "a project's results, or A compared with B, to share")
    report.add_argument("a", help="project (A when comparing)")
    report.add_argument("b", nargs="?", help="project B to compare A with")
    report.add_argument("--format", default=None, help="md | html (default: from -o, else md)")
    report.add_argument("-o", "--output", help="write to this file (default: stdout)")
    report.add_argument("--threshold", help="latency threshold in ms for the sweet spot")
    report.add_argument("--max-memory", metavar="MB", help="memory limit in MiB for the sweet spot")
    report.add_argument("--stat", default="median", help="median | p90 | p99")


def build_report(
    store: Store,
    a: str,
    b: str | None,
    threshold: float | None = None,
    stat: str = "median",
    max_memory_mib: float | None = None,
) -> Report:
    """The report of project `a`, or of `a` compared with `b` (the dashboard's too)."""
    from perftui.domain.compare import Side, compare_projects
    from perftui.domain.report.document import comparison_report, project_report
    from perftui.domain.traffic.stored import latest_capacity
    from perftui.optimize.notes import optimization_of

    projects = {}
    for name in (a, b) if b else (a,):
        project = store.get_project(name)
        if project is None:
            raise unknown_project(store, name)
        projects[name] = project
    samples = lambda run: store.latency_samples(run.id)  # noqa: E731
    int8 = {
        name: made.report_lines()
        for name, project in projects.items()
        if (made := optimization_of(project)) is not None
    }
    if b is None:
        own = store.runs(a)
        capacity = latest_capacity(
            store.project_benchmarks(a), own, lambda run: store.figures(run.id)
        )
        return project_report(projects[a], own, samples, int8, capacity)
    runs = {Side.A: store.runs(a), Side.B: store.runs(b)}
    comparison = compare_projects(
        a,
        runs[Side.A],
        b,
        runs[Side.B],
        threshold,
        stat,
        samples=samples,
        max_memory_mib=max_memory_mib,
    )
    return comparison_report(
        comparison, {Side.A: projects[a], Side.B: projects[b]}, runs, samples, int8
    )


def report_format(text: str | None, output: str | None) -> str:
    from perftui.domain.forms import options
    from perftui.domain.report.render import FORMATS

    if text is None:
        return "html" if output and Path(output).suffix.lower() in (".html", ".htm") else "md"
    return options.parse_choices(text, "format", FORMATS)[0]


def cmd_report(args: argparse.Namespace) -> int:
    from perftui.domain.forms import options
    from perftui.domain.limits import parse_memory_limit
    from perftui.domain.measurement.statistic import LATENCY_NAMES
    from perftui.domain.report.render import render

    output = output_path(args.output) if args.output else None
    fmt = report_format(args.format, args.output)
    stat = options.parse_choices(args.stat, "latency statistic", LATENCY_NAMES)[0]
    threshold = options.parse_threshold(args.threshold) if args.threshold else None
    memory = None if args.max_memory is None else parse_memory_limit(args.max_memory)
    report = build_report(open_store(args), args.a, args.b, threshold, stat, memory)
    text = render(report, fmt)
    if output is not None:
        write_output(output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return Exit.OK


COMMANDS: dict[str, Command] = {"report": cmd_report}
