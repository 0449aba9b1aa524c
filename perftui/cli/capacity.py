"""`perftui capacity MODEL|PROJECT --slo p99=50ms`: the highest request rate that meets latency
objectives, searched in a child process (perftui.bench.capacity_worker) after a closed-loop
run of the same configuration; every run stored as a benchmark's, the objectives and how the
search ended with the benchmark (perftui.domain.traffic.search), the capacity computed from
the stored runs (perftui.domain.traffic.stored) like everywhere else it is shown."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    open_store,
    positive_seconds,
    print_json,
    say,
    unknown_project,
)
from perftui.domain.forms.bench import DEFAULTS
from perftui.domain.settings import TYPED
from perftui.engines import DEFAULT_ENGINE, ENGINES

if TYPE_CHECKING:
    from perftui.bench.capacity import CapacityClient
    from perftui.domain.measurement.figures import Figures
    from perftui.domain.records import BenchmarkRequest, Project, RunResult
    from perftui.store import Store

BUDGET_S = 120.0
"""The search's seconds when --budget is not given (the closed-loop run before it is --time's
and its compile)."""
MOST_BUDGET_S = 86_400.0
CLOSED_TIME_S = 5.0
"""The closed-loop run's timed seconds when --time is not given: the maximum beside the
capacity, and where the search starts; the budget is for the search."""
SETTINGS: tuple[str, ...] = tuple(s.name for s in TYPED if s.name != "rate")
MODEL_FLAGS = ("engine", "device", "project")
"""Flags that name what a model file is measured on; a project brings its own."""


def add_parsers(command: CommandFactory) -> None:
    capacity = command(
        "capacity",
        "the highest request rate that meets latency objectives (open-loop traffic; "
        "bracket, bisect, confirm), beside the closed-loop maximum",
    )
    capacity.add_argument("target", metavar="MODEL|PROJECT", help="model file or project")
    capacity.add_argument(
        "--slo",
        required=True,
        help="latency objectives, all to be met: p99=50ms, median=5ms,p99=20ms (median, p90, "
        "p99; s, ms or us)",
    )
    capacity.add_argument(
        "--budget",
        metavar="S",
        help=f"most seconds the search takes, after the closed-loop run (default {BUDGET_S:g})",
    )
    capacity.add_argument("--json", action="store_true", help="print one JSON document")
    models = capacity.add_argument_group("how it is measured (bench's flags; one configuration)")
    models.add_argument(
        "--engine", help=f"{' | '.join(ENGINES)} (a model file; default {DEFAULT_ENGINE})"
    )
    models.add_argument("--device", help="device as the engine names it (default CPU)")
    models.add_argument("--project", help="project name (default: MODEL-ENGINE-DEVICE)")
    for name in SETTINGS:
        models.add_argument("--" + name, help=f"as bench's (default {DEFAULTS[name] or 'none'})")
    models.add_argument(
        "--time", help=f"the closed-loop run's timed seconds (default {CLOSED_TIME_S:g})"
    )
    for name in ("iterations", "warmup"):
        models.add_argument("--" + name, help=f"as bench's (default {DEFAULTS[name]})")
    models.add_argument("--shape", action="append", help="bind dynamic dimensions, as bench's")
    models.add_argument("--data", help="your own input data, as bench's")
    models.add_argument("--seed", type=int, help="seed of the inputs and arrivals (default 0)")
    capacity.add_argument(
        "--rate", help=argparse.SUPPRESS
    )  # refused in a line of its own: the search chooses the rates


def _request(store: Store, args: argparse.Namespace) -> BenchmarkRequest:
    """The one configuration to search, as bench builds it; CliError for a matrix, a rate,
    an unknown project or model flags given with a project."""
    from perftui.cli.bench import request_from_args
    from perftui.domain.names import terminal_safe
    from perftui.domain.records import LOCAL
    from perftui.domain.settings import BY_NAME, parse

    if args.rate is not None:
        raise CliError("--rate: capacity searches the rate itself; leave --rate out")
    project: Project | None = store.get_project(args.target)
    path = Path(args.target).expanduser()
    if project is None and not path.is_file():
        if path.suffix.lower() in (".onnx", ".xml") or "/" in args.target:
            raise CliError(f"model file {terminal_safe(args.target)} does not exist")
        raise unknown_project(store, args.target)
    if project is not None and project.target != LOCAL:
        raise CliError(
            f"project {project.name!r} is measured on target {project.target}; capacity searches"
            " on this machine only: give the model file to search it here"
        )
    given = [f"--{n}" for n in MODEL_FLAGS if getattr(args, n) is not None]
    if project is not None and given:
        raise CliError(
            f"{given[0]}: project {project.name!r} brings its own model, engine and device; "
            "the flag is for a model file"
        )
    settings = {n: getattr(args, n) if getattr(args, n) is not None else DEFAULTS[n] for n in
                (*SETTINGS, "iterations", "warmup")}  # fmt: skip
    made = argparse.Namespace(
        model=project.model if project is not None else str(path),
        engine=project.engine if project is not None else args.engine or DEFAULT_ENGINE,
        device=project.device if project is not None else args.device or "CPU",
        project=project.name if project is not None else args.project,
        shape=args.shape or [],
        data=args.data,
        seed=args.seed or 0,
        profile=False,
        profile_iterations=DEFAULTS["profile_iterations"],
        repeat="1",
        time=args.time if args.time is not None else str(CLOSED_TIME_S),
        rate="",
        **settings,
    )
    request = request_from_args(made)
    if len(request.configs) != 1:
        varied = [
            "--" + name
            for name in SETTINGS
            if getattr(args, name) is not None
            and len(parse(BY_NAME[name], getattr(args, name))) > 1
        ] + (["--shape"] if len(request.shapes.points()) > 1 else [])
        raise CliError(
            f"{', '.join(varied)} give {len(request.configs)} configurations; capacity is "
            "searched for one: give one value each"
        )
    return request if project is None else replace(request, project=project)


def cmd_capacity(args: argparse.Namespace) -> int:
    from perftui.bench.capacity import CapacityClient
    from perftui.bench.plan import validate_request
    from perftui.bench.protocol import Fatal, RunFinished, RunStarted, SearchEnded
    from perftui.cli.bench import busy_warning
    from perftui.cli.capacity_text import capacity_document, capacity_text, point_line
    from perftui.cli.interrupts import StopSignals
    from perftui.cli.progress import ProgressPrinter
    from perftui.domain.traffic.objective import parse_objectives
    from perftui.domain.traffic.search import CapacitySearch
    from perftui.domain.traffic.stored import latest_capacity

    objectives = parse_objectives(args.slo)
    budget = (
        BUDGET_S
        if args.budget is None
        else positive_seconds("--budget", args.budget, MOST_BUDGET_S)
    )
    store = open_store(args)
    request = _request(store, args)
    validate_request(request)
    client = CapacityClient(request, CapacitySearch(objectives, budget), store)
    printer = ProgressPrinter(sys.stderr, 1)
    warning = busy_warning()
    if warning:
        printer.note(warning)
    outcome: dict[str, Any] | None = None
    fatal = None
    try:
        with StopSignals(client, printer) as signals:
            for event in client.events():
                signals.say_cancelling()
                if isinstance(event, RunFinished) and event.run.config.rate is not None:
                    printer.note(point_line(event.run, objectives))
                elif isinstance(event, SearchEnded):
                    outcome = event.outcome
                elif isinstance(event, Fatal):
                    fatal = event.error
                elif not (isinstance(event, RunStarted) and event.config.rate is not None):
                    printer.show(event)  # the closed-loop run's progress
    finally:
        printer.close()
    if outcome is not None:
        stopped = outcome["stopped"]
        search = client.search.ending(
            None if stopped is None else str(stopped), float(outcome["elapsed_s"])
        )
    else:
        search = client.search.ending(_why_not(client, fatal), 0.0)
    store.end_search(client.benchmark_id, search)
    if fatal and not client.runs:
        raise CliError(fatal)
    project = client.request.project
    benchmarks = store.project_benchmarks(project.name)

    def figures(run: RunResult) -> Figures | None:
        return store.figures(run.id)

    found = latest_capacity(benchmarks, store.runs(project.name), figures)
    assert found is not None

    if args.json:
        print_json(capacity_document(project, found, figures))
    else:
        print(capacity_text(project, found, figures))
        say(f"saved to {store.path}")
    if client.cancelled:
        return Exit.CANCELLED
    failed = fatal or any(run.status == "failed" for run in client.runs)
    return Exit.RUN_FAILED if failed else Exit.OK


def _why_not(client: CapacityClient, fatal: str | None) -> str:
    """Why a search that sent no outcome ended."""
    if fatal:
        return f"the search failed: {fatal}"
    lost = [r for r in client.runs if r.config.rate is not None and r.status == "failed"]
    if lost:
        return f"the search failed at {lost[-1].config.rate:g} requests/s: {lost[-1].error}"
    if client.cancelled:
        return "cancelled during the closed-loop run"
    return "the closed-loop run did not succeed, so there was no rate to start from"


COMMANDS: dict[str, Command] = {"capacity": cmd_capacity}
