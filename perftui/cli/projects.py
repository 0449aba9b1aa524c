"""`perftui projects` (each project with its best figures) and `perftui show PROJECT`."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.cli.common import (
    Command,
    CommandFactory,
    Exit,
    open_store,
    print_json,
    run_document,
    unknown_project,
)

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures
    from perftui.domain.measurement.summary import Headline, ProjectSummary
    from perftui.domain.records import Project, RunResult


def add_parsers(command: CommandFactory) -> None:
    projects = command(
        "projects", "list projects with their best configurations' figures (repeats combined)"
    )
    projects.add_argument("--json", action="store_true")

    show = command("show", "a project and its runs")
    show.add_argument("project")
    show.add_argument("--json", action="store_true")
    show.add_argument(
        "--layers",
        action="store_true",
        help="the newest profiled run's layers and layer types: time, precision, FLOPs at the"
        " run's shapes and the GFLOP/s achieved",
    )
    show.add_argument("--run", metavar="ID", help="with --layers: this run (an id or prefix)")


NO_CLOSED_LOOP = "no closed-loop run"
"""A project's best when its successful runs all ran at a rate: those are not ranked (their
throughput is the rate offered, their latency counts queueing)."""


def _no_best(summary: ProjectSummary) -> str:
    return NO_CLOSED_LOOP if summary.ok_runs else "-"


def cmd_projects(args: argparse.Namespace) -> int:
    from perftui.cli.textfmt import ms_with_interval, with_interval

    store = open_store(args)
    summaries = store.summaries()
    precisions = store.precisions()
    rows = []
    for p, s in summaries:  # the best configurations' figures, repetitions combined
        fastest = store.headline(p.name, s.best_throughput_config)
        quickest = store.headline(p.name, s.best_latency_config)
        rows.append((p, s, fastest, quickest))
    if args.json:
        print_json({"projects": [_project_json(*row, precisions.get(row[0].name)) for row in rows]})
        return Exit.OK
    if not summaries:
        print("no projects yet: run `perftui bench MODEL` or open the dashboard with `perftui`")
        return Exit.OK
    from perftui.domain.charts.series import short_label
    from perftui.domain.measurement.context import model_is_int8, precision_text

    cells = [
        [
            p.name,
            Path(p.model).name,
            p.engine,
            p.device,
            precision_text(precisions.get(p.name, "-"), model_is_int8([], p.notes)),
            str(s.runs),
            with_interval(s.best_throughput_fps, fastest and fastest.figures.throughput),
            fastest.figures.verdict.status if fastest else "-",
            short_label(fastest.config) if fastest else _no_best(s),
            ms_with_interval(
                s.best_latency_ms, quickest and quickest.figures.latency.get("median")
            ),
            short_label(quickest.config) if quickest else _no_best(s),
            (s.last_run_at or "-")[:16],
        ]
        for p, s, fastest, quickest in rows
    ]
    headers = (
        "project",
        "model",
        "engine",
        "device",
        "ran",
        "runs",
        "best fps",
        "verdict",
        "at",
        "best ms",
        "at",
        "last run",
    )
    width = shutil.get_terminal_size((UNLIMITED, 0))[0] if sys.stdout.isatty() else UNLIMITED
    print(fitted_table(headers, cells, {5, 6, 9}, width))
    return Exit.OK


UNLIMITED = 10**6
"""The width of a table printed to a pipe or a file (whatever COLUMNS says, as `ls` does):
every column, nothing cut."""
DROPPED_FIRST = (11, 1, 5, 3, 4, 2)
"""What the projects table leaves out, in turn, until it fits the terminal: last run, model,
runs, device, ran, engine (the figures, their verdict and configurations always stay)."""
NAME_MIN = 20


def fitted_table(headers: Sequence[str], rows: list[list[str]], right: set[int], width: int) -> str:
    """The table of `perftui projects` on one line per project within `width` columns: the
    project's name cut in the middle (to NAME_MIN at least), else the columns of
    DROPPED_FIRST left out in turn."""
    from perftui.cli.textfmt import table
    from perftui.domain.cells import cell_width
    from perftui.domain.errors import cut

    kept = list(range(len(headers)))
    longest = max(cell_width(row[0]) for row in rows)

    def render(name_width: int) -> str:
        picked = [
            [cut(row[0], name_width, middle=True)] + [row[i] for i in kept[1:]] for row in rows
        ]
        aligned = {kept.index(i) for i in right if i in kept}
        return table([headers[i] for i in kept], picked, aligned)

    def over(text: str) -> int:
        return max(cell_width(line) for line in text.splitlines()) - width

    for column in DROPPED_FIRST:
        if over(render(NAME_MIN)) <= 0:
            break
        kept.remove(column)
    whole = render(longest)
    return render(max(NAME_MIN, longest - over(whole))) if over(whole) > 0 else whole


def _project_json(
    p: Project,
    s: ProjectSummary,
    fastest: Headline | None,
    quickest: Headline | None,
    precision: str | None,
) -> dict[str, object]:
    def best(found: Headline | None, value: float | None) -> dict[str, object] | None:
        if found is None:
            return None
        return {
            "value": value,
            "config": found.config.label(),
            "runs": found.runs,
            **found.figures.to_dict(),
        }

    return {
        "name": p.name,
        "model": p.model,
        "engine": p.engine,
        "device": p.device,
        "runs": s.runs,
        "precision_run": precision,
        "best_throughput_fps": s.best_throughput_fps,
        "best_latency_ms": s.best_latency_ms,
        "best_throughput": best(fastest, s.best_throughput_fps),
        "best_latency": best(quickest, s.best_latency_ms),
    }


def cmd_show(args: argparse.Namespace) -> int:
    from perftui.cli.textfmt import runs_table

    store = open_store(args)
    project = store.get_project(args.project)
    if project is None:
        raise unknown_project(store, args.project)
    runs = store.runs(project.name)
    if args.layers:
        return _show_layers(project, runs, args)

    def samples(run: RunResult) -> np.ndarray | None:
        return store.latency_samples(run.id)

    def known(run: RunResult) -> Figures | None:  # as stored: no samples read
        return store.figures(run.id)

    if args.json:
        print_json(run_document(project, runs, samples, known))
        return Exit.OK
    print(f"{project.name}: {project.model} on {project.engine}/{project.device}")
    if not runs:
        print("no runs yet")
        return Exit.OK
    # the store gives the newest first: reversed, runs started in one second keep the order
    # they were measured in, as `bench` prints them
    print(runs_table(runs[::-1], samples, project, known))
    return Exit.OK


def _show_layers(project: Project, runs: list[RunResult], args: argparse.Namespace) -> int:
    from perftui.cli.layers import inspected_at, layers_document, layers_text, profiled_run

    run = profiled_run(runs, args.run)
    info, why = inspected_at(project, run)
    if args.json:
        print_json(layers_document(run, info, why))
    else:
        print(layers_text(run, info, why))
    return Exit.OK


COMMANDS: dict[str, Command] = {"projects": cmd_projects, "show": cmd_show}
