"""`perftui bench MODEL`: measure a model over a matrix of settings (the CLI contract).

The flags are the dashboard form's fields, turned into a request by the same builder
(perftui.domain.forms.bench.build_request), so the same settings give the same runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    checked_flag,
    db_path,
    open_store,
    print_json,
    run_document,
    say,
)
from perftui.domain.errors import StoreError
from perftui.domain.forms.bench import (
    DEFAULTS,
    FIELD_NAMES,
    REPEAT_DEFAULT,
    REPEAT_SUGGESTED,
    long_warning,
)
from perftui.domain.settings import TYPED
from perftui.engines import DEFAULT_ENGINE, ENGINES

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.records import BenchmarkRequest, RunResult
    from perftui.store import Store

FLAGS = {name: "--" + name.replace("_", "-") for name in FIELD_NAMES} | {
    "shapes": "--shape",
}
"""The flag of each field of the settings form."""


def add_parsers(command: CommandFactory) -> None:
    bench = command("bench", "measure a model over a matrix of settings")
    bench.add_argument("model", help="ONNX (.onnx) or OpenVINO IR (.xml) model file")
    bench.add_argument("--engine", default=DEFAULT_ENGINE, help=" | ".join(ENGINES))
    bench.add_argument("--device", default="CPU", help="device as the engine names it")

    def setting(name: str, help: str) -> None:
        bench.add_argument(FLAGS[name], default=DEFAULTS[name], help=help)

    for each in TYPED:
        setting(each.name, each.cli_help)
    setting("time", "minimum timed seconds per run (0: the iterations alone)")
    setting("iterations", "minimum requests per run")
    setting("warmup", "untimed requests before timing")
    bench.add_argument(
        "--shape",
        action="append",
        default=[],
        help="bind dynamic dimensions: seq=128 (every input that has 'seq'; seq=64,128 is a "
        "matrix axis), input_ids[1,128] (one input), or [1,128] (every input)",
    )
    bench.add_argument(
        "--data",
        help="your own input data: a .npz with one array per input, or a folder of .npz "
        "samples or INPUT.npy files (cycled over the requests in flight)",
    )
    bench.add_argument("--profile", action="store_true", help="add a per-layer profile pass")
    setting("profile_iterations", "requests profiled")
    setting(
        "repeat",
        f"measure each configuration N times, each in a fresh worker, interleaved across "
        f"the matrix (default {REPEAT_DEFAULT}; {REPEAT_SUGGESTED} or more to compare)",
    )
    bench.add_argument("--seed", type=int, default=0, help="seed of the random input data")
    bench.add_argument("--project", help="project name (default: MODEL-ENGINE-DEVICE)")
    bench.add_argument(
        "--target",
        help="measure on this SSH target (perftui targets add), or on several at once: "
        "local,boxa,boxb; default: the project's, else this machine",
    )
    bench.add_argument("--no-save", action="store_true", help="do not store the results")
    bench.add_argument("--json", action="store_true", help="print one JSON document")


def request_from_args(args: argparse.Namespace) -> BenchmarkRequest:
    """The request the flags describe; CliError naming the flag of a bad setting."""
    from perftui.domain.forms import options
    from perftui.domain.forms.bench import build_request
    from perftui.domain.forms.fields import FieldError
    from perftui.domain.limits import check_seed
    from perftui.domain.names import check_project_name, default_project_name
    from perftui.domain.records import Project
    from perftui.engines.capabilities import capabilities

    model = Path(args.model).expanduser().absolute()
    engines = options.parse_choices(args.engine, "engine", ENGINES)
    if len(engines) != 1:
        raise CliError("give one --engine; benchmark each engine as its own project")
    engine = engines[0]
    name = args.project or default_project_name(str(model), engine, args.device)
    flag = "--project" if args.project else "the default project name (give --project)"
    checked_flag(flag, check_project_name, name)
    project = Project(
        name=name,
        model=str(model),
        engine=engine,
        device=args.device,
    )
    settings = {name: getattr(args, name) for name in FIELD_NAMES if name != "shapes"}
    settings["shapes"] = ",".join(args.shape)
    checked_flag("--seed", check_seed, args.seed)
    try:
        data = str(Path(args.data).expanduser().absolute()) if args.data else None
        request = build_request(
            project,
            settings,
            capabilities=capabilities(engine),
            profile=args.profile,
            seed=args.seed,
            data=data,
        )
    except FieldError as error:
        raise CliError(f"{FLAGS[error.field]}: {error}") from None
    return request


def busy_warning() -> str | None:
    """One line when other work already keeps the machine's CPUs busy, else None."""
    from perftui.bench.machine import busy_reasons

    reasons = busy_reasons()
    if not reasons:
        return None
    return "warning: the machine is busy (" + "; ".join(reasons) + "): expect noisy figures"


class KeepMeasured:
    """The store as the client stores runs in it: once a write fails, the runs that follow
    are kept unsaved (printed, with how to keep them) instead of lost with the error."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.error = ""

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None) -> RunResult:
        if not self.error:
            try:
                return self.store.add_run(run, samples_ms)
            except StoreError as exc:
                self.error = str(exc)
        return run


def cmd_bench(args: argparse.Namespace) -> int:
    from perftui.bench.client import BenchmarkClient
    from perftui.bench.plan import validate_request
    from perftui.bench.protocol import Fatal, RunFinished
    from perftui.cli.interrupts import StopSignals
    from perftui.cli.progress import ProgressPrinter
    from perftui.cli.targets import bench_target
    from perftui.cli.textfmt import runs_table
    from perftui.targets.launcher import priced

    request = request_from_args(args)
    validate_request(request)
    if args.target and "," in args.target:  # several hosts at once (perftui.cli.fleet)
        from perftui.cli.fleet import cmd_fleet

        return cmd_fleet(args, request)
    store = None if args.no_save else open_store(args)
    request, launcher = bench_target(args, request, store, say)
    client = BenchmarkClient(request, store, launcher)
    client.launcher = priced(client.launcher, db_path(args), client.request.project.target)
    kept = None if store is None else KeepMeasured(store)
    client.store = kept  # a failed write loses no measured run
    printer = ProgressPrinter(sys.stderr, client.total)
    # the busy check watches this machine: it says nothing of a target's
    for warning in (long_warning(request), None if launcher else busy_warning()):
        if warning:
            printer.note(warning if warning.startswith("warning") else f"warning: {warning}")
    samples: dict[int, np.ndarray | None] = {}  # by run object: unsaved runs have no id

    fatal = None
    try:
        with StopSignals(client, printer) as signals:
            for event in client.events():
                signals.say_cancelling()
                printer.show(event)
                if isinstance(event, RunFinished):
                    samples[id(event.run)] = event.samples_ms
                if isinstance(event, Fatal):
                    fatal = event.error
    finally:
        printer.close()
    if fatal:
        raise CliError(fatal)
    runs = client.runs
    project = client.request.project
    if args.json:
        print_json(run_document(project, runs, lambda run: samples.get(id(run))))
    else:
        print(f"{project.name}: {project.model} on {project.engine}/{project.device}")
        print(runs_table(runs, lambda run: samples.get(id(run)), project))
        if kept is not None and not kept.error:
            print(f"saved to {kept.store.path}")
    if kept is not None and kept.error:
        raise CliError(
            f"{kept.error}; the runs printed above were measured but not all stored"
            " — bench again with --db PATH elsewhere, or keep what is stored: perftui export"
        )
    if client.cancelled:
        return Exit.CANCELLED
    return Exit.RUN_FAILED if any(run.status == "failed" for run in runs) else Exit.OK


COMMANDS: dict[str, Command] = {"bench": cmd_bench}
