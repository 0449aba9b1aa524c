"""perftui: measure, understand and compare inference performance (OpenVINO, ONNX Runtime).

A bare `perftui` opens the dashboard; the sub-commands run headless (DESIGN.md: the CLI
contract).

Exit status: 0 success, 1 a run failed, 2 bad input (one line on stderr), 130 cancelled.
Heavy imports (engines, numpy-based domain code, textual) happen inside the commands, so
`perftui --help` and argument errors are instant.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from perftui import __version__
from perftui.optimize import command as optimize_command

if TYPE_CHECKING:
    from perftui.domain.records import Project, RunResult
    from perftui.store.database import Store

EXIT_OK, EXIT_RUN_FAILED, EXIT_BAD_INPUT, EXIT_CANCELLED = 0, 1, 2, 130


class CliError(Exception):
    """Bad input found by the CLI itself."""


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line and exits 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> Parser:
    parser = Parser(prog="perftui", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"perftui {__version__}")
    parser.add_argument("--db", help="results database (default: $PERFTUI_DB or the XDG data dir)")
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")

    def command(name: str, help: str) -> Parser:
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("--db", default=argparse.SUPPRESS, help="results database")
        return p

    bench = command("bench", "measure a model over a matrix of settings")
    bench.add_argument("model", help="ONNX (.onnx) or OpenVINO IR (.xml) model file")
    bench.add_argument("--engine", default="openvino", help="openvino | onnxruntime")
    bench.add_argument("--device", default="CPU", help="device as the engine names it")
    bench.add_argument("--batch", default="1", help="batch sizes, e.g. 1,4")
    bench.add_argument("--threads", default="0", help="thread counts, e.g. 1,2 (0: engine default)")
    bench.add_argument("--streams", default="auto", help="N or auto (OpenVINO NUM_STREAMS)")
    bench.add_argument("--requests", default="auto", help="requests in flight in async mode")
    bench.add_argument(
        "--hint",
        help="latency|throughput|cumulative_throughput|none "
        "(default: latency for sync, throughput for async)",
    )
    bench.add_argument("--api", default="sync", help="sync, async or sync,async")
    bench.add_argument("--time", type=float, default=10.0, help="minimum timed seconds per run")
    bench.add_argument("--iterations", type=int, default=100, help="minimum requests per run")
    bench.add_argument("--warmup", type=int, default=10, help="untimed requests before timing")
    bench.add_argument(
        "--shape",
        action="append",
        default=[],
        help="static shape for a dynamic input, e.g. input_ids[1,128]",
    )
    bench.add_argument("--precision", help="f32 | bf16 | f16 (OpenVINO inference precision)")
    bench.add_argument("--profile", action="store_true", help="add a per-layer profile pass")
    bench.add_argument("--profile-iterations", type=int, default=50, help="requests profiled")
    bench.add_argument("--seed", type=int, default=0, help="seed of the random input data")
    bench.add_argument("--project", help="project name (default: MODEL-ENGINE-DEVICE)")
    bench.add_argument("--no-save", action="store_true", help="do not store the results")
    bench.add_argument("--json", action="store_true", help="print one JSON document")

    projects = command("projects", "list projects with their best figures")
    projects.add_argument("--json", action="store_true")

    show = command("show", "a project and its runs")
    show.add_argument("project")
    show.add_argument("--json", action="store_true")

    inspect = command("inspect", "inputs, outputs, operators, parameters and FLOPs of a model")
    inspect.add_argument("model")
    inspect.add_argument("--shape", action="append", default=[], help="e.g. input_ids[1,128]")
    inspect.add_argument("--json", action="store_true")

    compare = command("compare", "compare two projects: sweet spot, inference time, layers")
    compare.add_argument("a", help="project A (e.g. the FP32 version)")
    compare.add_argument("b", help="project B (e.g. the INT8 version)")
    compare.add_argument("--threshold", help="latency threshold in ms for the sweet spot")
    compare.add_argument("--stat", default="median", help="median | p90 | p99")
    compare.add_argument("--runs", help="only these run ids (comma-separated; prefixes work)")
    compare.add_argument("--json", action="store_true")

    devices = command("devices", "engines and the devices they report on this machine")
    devices.add_argument("--json", action="store_true")

    export = command("export", "write projects and runs as JSON or CSV")
    export.add_argument("--format", choices=("json", "csv"), default="json")
    export.add_argument("--project", action="append", help="only this project (repeatable)")
    export.add_argument("-o", "--output", help="file to write (default: stdout)")

    imp = command("import", "read what `perftui export` wrote (JSON)")
    imp.add_argument("file")

    optimize_command.add_parser(command)
    return parser


def open_store(args: argparse.Namespace) -> Store:
    from perftui.store import Store, default_db_path

    return Store(Path(args.db) if args.db else default_db_path())


def print_json(document: Any) -> None:
    json.dump(document, sys.stdout, indent=2)
    sys.stdout.write("\n")


def run_document(project: Project, runs: Sequence[RunResult]) -> dict[str, Any]:
    """The bench/show JSON document of the CLI contract."""
    from perftui.bench.environment import environment

    env = next((r.resolved.get("environment") for r in runs if "environment" in r.resolved), None)
    return {
        "project": project.name,
        "model": project.model,
        "engine": project.engine,
        "device": project.device,
        "environment": env or environment(),
        "source_project": project.source_project,
        "notes": project.notes,
        "runs": [run.to_dict() for run in runs],
    }


def cmd_bench(args: argparse.Namespace) -> int:
    from perftui.bench.client import BenchmarkClient
    from perftui.bench.plan import validate_request
    from perftui.bench.protocol import Fatal
    from perftui.cli.progress import ProgressPrinter
    from perftui.cli.textfmt import runs_table
    from perftui.domain import options
    from perftui.domain.records import AUTO, HINTS, BenchmarkRequest, Budget, Project

    model = Path(args.model).expanduser().absolute()
    engines = options.parse_choices(args.engine, "engine", ("openvino", "onnxruntime"))
    if len(engines) != 1:
        raise CliError("give one --engine; benchmark each engine as its own project")
    engine = engines[0]
    if not (
        math.isfinite(args.time)  # nan or inf: a stop condition that is never met
        and args.time >= 0
        and args.iterations >= 1
        and args.warmup >= 0
        and args.profile_iterations >= 1
    ):
        raise CliError(
            "--time must be a number of seconds >= 0, --iterations and --profile-iterations "
            ">= 1, --warmup >= 0"
        )
    apis = options.parse_choices(args.api, "api", ("sync", "async"))
    requests = options.parse_int_or_auto(args.requests, "requests")
    configs = []
    for api in apis:
        default_hint = "throughput" if api == "async" else "latency"
        hints = options.parse_choices(args.hint or default_hint, "hint", HINTS)
        configs += options.expand_matrix(
            batches=options.parse_positive_ints(args.batch, "batch"),
            threads=options.parse_positive_ints(args.threads, "threads", allow_zero=True),
            streams=options.parse_int_or_auto(args.streams, "streams"),
            # sync has one request in flight whatever --requests says: one run, not copies
            requests=requests if api == "async" else [AUTO],
            hints=hints,
            apis=(api,),
            precision=options.parse_precision(args.precision),
        )
    project = Project(
        name=args.project or f"{model.stem}-{engine}-{args.device}",
        model=str(model),
        engine=engine,
        device=args.device,
    )
    request = BenchmarkRequest(
        project=project,
        configs=tuple(configs),
        budget=Budget(args.time, args.iterations, args.warmup, args.profile_iterations),
        shapes=options.parse_shapes(args.shape),
        profile=args.profile,
        seed=args.seed,
    )
    validate_request(request)
    client = BenchmarkClient(request, None if args.no_save else open_store(args))
    printer = ProgressPrinter(sys.stderr, client.total)

    interrupts: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        """Ctrl-C, SIGTERM or a hang-up (SSH drop) cancel; a second Ctrl-C stops at once."""
        if client.cancelled and signum == signal.SIGINT:
            client.kill()
        else:
            client.cancel()
        interrupts.append(signum)

    stop_signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {signum: signal.signal(signum, on_signal) for signum in stop_signals}
    fatal = None
    try:
        for event in client.events():
            if interrupts == [signal.SIGINT]:  # printed here, not in the handler
                printer.note(
                    "cancelling: the run in progress stops, finished runs are kept "
                    "(Ctrl-C again to stop at once)"
                )
                interrupts.append(-1)
            printer.show(event)
            if isinstance(event, Fatal):
                fatal = event.error
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        printer.close()
    if fatal:
        raise CliError(fatal)
    runs = client.runs
    if args.json:
        print_json(run_document(client.request.project, runs))
    else:
        print(f"{client.request.project.name}: {model} on {engine}/{args.device}")
        print(runs_table(runs))
        if not args.no_save and client.store is not None:
            print(f"saved to {client.store.path}")
    if client.cancelled:
        return EXIT_CANCELLED
    return EXIT_RUN_FAILED if any(run.status == "failed" for run in runs) else EXIT_OK


def cmd_projects(args: argparse.Namespace) -> int:
    from perftui.cli.textfmt import num, table
    from perftui.domain.units import ms

    summaries = open_store(args).summaries()
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
            str(s.runs),
            num(s.best_throughput_fps, 1),
            ms(s.best_latency_ms),
            (s.last_run_at or "-")[:16],
        ]
        for p, s in summaries
    ]
    headers = ("project", "model", "engine", "device", "runs", "best fps", "best ms", "last run")
    print(table(headers, rows, right={4, 5, 6}))
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from perftui.cli.textfmt import runs_table

    store = open_store(args)
    project = store.get_project(args.project)
    if project is None:
        names = ", ".join(p.name for p in store.projects()) or "none yet"
        raise CliError(f"no project named {args.project!r}; projects: {names}")
    runs = store.runs(project.name)
    if args.json:
        print_json(run_document(project, runs))
        return EXIT_OK
    print(f"{project.name}: {project.model} on {project.engine}/{project.device}")
    print(runs_table(runs) if runs else "no runs yet")
    return EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    from perftui.cli.textfmt import model_info_text
    from perftui.domain.options import parse_shapes
    from perftui.inspection.model import inspect_model

    info = inspect_model(str(Path(args.model).expanduser()), parse_shapes(args.shape) or None)
    if args.json:
        print_json(info.to_dict())
    else:
        print(model_info_text(info))
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from perftui.cli.compare_report import comparison_document, comparison_text
    from perftui.domain import options
    from perftui.domain.compare import LATENCY_STATS, compare_projects

    stat = options.parse_choices(args.stat, "latency statistic", LATENCY_STATS)[0]
    threshold = None
    if args.threshold is not None:
        threshold = options.parse_threshold(args.threshold)
    store = open_store(args)
    runs = {}
    for name in (args.a, args.b):
        if store.get_project(name) is None:
            names = ", ".join(p.name for p in store.projects()) or "none yet"
            raise CliError(f"no project named {name!r}; projects: {names}")
        runs[name] = store.runs(name)
    if args.runs:
        wanted = [item.strip() for item in args.runs.split(",") if item.strip()]
        for name in runs:
            runs[name] = [r for r in runs[name] if any(r.id.startswith(w) for w in wanted)]
        unknown = [
            w for w in wanted if not any(r.id.startswith(w) for rs in runs.values() for r in rs)
        ]
        if unknown:
            raise CliError(f"no run of {args.a!r} or {args.b!r} has an id starting {unknown[0]!r}")
    comparison = compare_projects(args.a, runs[args.a], args.b, runs[args.b], threshold, stat)
    if args.json:
        print_json(comparison_document(comparison))
    else:
        print(comparison_text(comparison))
    return EXIT_OK


def cmd_devices(args: argparse.Namespace) -> int:
    from perftui.domain.records import ENGINES
    from perftui.engines import get_engine

    found = {}
    for name in ENGINES:
        engine = get_engine(name)
        found[name] = {"version": engine.version(), "devices": engine.devices()}
    if args.json:
        print_json({"engines": found})
    else:
        for name, info in found.items():
            print(f"{name} {info['version']}: {', '.join(info['devices'])}")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from perftui.store.exchange import export_csv, export_document

    store = open_store(args)
    if args.format == "csv":
        text = export_csv(store, args.project)
    else:
        text = json.dumps(export_document(store, args.project), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from perftui.store.exchange import import_document

    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CliError(f"cannot read {path}: {error.__class__.__name__}: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        hint = " (CSV is for spreadsheets; import the JSON export)" if path.suffix == ".csv" else ""
        raise CliError(f"{path} is not a perftui JSON export{hint}") from None
    projects, runs = import_document(open_store(args), document)
    print(f"imported {projects} project(s) and {runs} run(s) from {path}")
    return EXIT_OK


COMMANDS = {
    "bench": cmd_bench,
    "projects": cmd_projects,
    "show": cmd_show,
    "inspect": cmd_inspect,
    "compare": cmd_compare,
    "optimize": optimize_command.run,
    "devices": cmd_devices,
    "export": cmd_export,
    "import": cmd_import,
}


def open_dashboard(args: argparse.Namespace) -> int:
    from perftui.store.paths import default_db_path
    from perftui.tui.app import create_app

    create_app(db_path=Path(args.db) if args.db else default_db_path()).run()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from perftui.domain.errors import InputError, StoreError

    try:
        if args.command is None:
            return open_dashboard(args)
        return COMMANDS[args.command](args)
    except (CliError, InputError, StoreError) as error:
        print(f"perftui: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:  # Ctrl-C before (or after) a benchmark took the signal over
        print("perftui: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    except Exception as error:  # a bug, not bad input: say so in one line, keep the details
        if os.environ.get("PERFTUI_DEBUG"):
            raise
        print(
            f"perftui: internal error: {type(error).__name__}: {error} "
            "(set PERFTUI_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_RUN_FAILED


if __name__ == "__main__":
    sys.exit(main())
