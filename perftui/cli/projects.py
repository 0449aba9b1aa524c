"""`perftui projects` (each project with its best figures) and `perftui show PROJECT`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.cli.common import (
    EXIT_OK,
    Command,
    CommandFactory,
    open_store,
    print_json,
    run_document,
    unknown_project,
)

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures
    from perftui.domain.records import Project, RunResult


def add_parsers(command: CommandFactory) -> None:
    projects = command("projects", "list projects with their best figures")
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


def cmd_projects(args: argparse.Namespace) -> int:
    from perftui.cli.textfmt import num, table
    from perftui.domain.units import ms

    store = open_store(args)
    summaries = store.summaries()
    precisions = store.precisions()
    if args.json:
        print_json(
            {
                "projects": [
                    {
                        "name": p.name,
                        "model": p.model,
                        "engine": p.engine,
                        "device": p.device,
                        "runs": s.runs,
                        "precision_run": precisions.get(p.name),
                        "best_throughput_fps": s.best_throughput_fps,
                        "best_latency_ms": s.best_latency_ms,
                    }
                    for p, s in summaries
                ]
            }
        )
        return EXIT_OK
    if not summaries:
        print("no projects yet: run `perftui bench MODEL` or open the dashboard with `perftui`")
        return EXIT_OK
    rows = [
        [
            p.name,
            Path(p.model).name,
            p.engine,
            p.device,
            precisions.get(p.name, "-"),
            str(s.runs),
            num(s.best_throughput_fps, 1),
            ms(s.best_latency_ms),
            (s.last_run_at or "-")[:16],
        ]
        for p, s in summaries
    ]
    headers = (
        "project",
        "model",
        "engine",
        "device",
        "ran",
        "runs",
        "best fps",
        "best ms",
        "last run",
    )
    print(table(headers, rows, right={5, 6, 7}))
    return EXIT_OK


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
        return EXIT_OK
    print(f"{project.name}: {project.model} on {project.engine}/{project.device}")
    if not runs:
        print("no runs yet")
        return EXIT_OK
    print(runs_table(runs, samples, project, known))
    return EXIT_OK


def _show_layers(project: Project, runs: list[RunResult], args: argparse.Namespace) -> int:
    from perftui.cli.layers import inspected_at, layers_document, layers_text, profiled_run

    run = profiled_run(runs, args.run)
    info, why = inspected_at(project, run)
    if args.json:
        print_json(layers_document(run, info, why))
    else:
        print(layers_text(run, info, why))
    return EXIT_OK


COMMANDS: dict[str, Command] = {"projects": cmd_projects, "show": cmd_show}
