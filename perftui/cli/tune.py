"""`perftui tune PROJECT --max-latency MS`: search the project's settings for the highest
throughput whose latency statistic stays within the budget (perftui.tune.search).

Every trial is a stored run of the project. Progress goes to stderr; Ctrl-C keeps the
finished trials and reports the best so far.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import TYPE_CHECKING

from perftui.cli.common import (
    EXIT_CANCELLED,
    EXIT_OK,
    EXIT_RUN_FAILED,
    CliError,
    Command,
    CommandFactory,
    open_store,
    print_json,
    unknown_project,
)

if TYPE_CHECKING:
    from perftui.domain.records import BenchmarkRequest, RunConfig
    from perftui.domain.tune_result import Limits, Trial
    from perftui.tune.search import Outcome

DEFAULT_BUDGET = "10m"
TRIAL_TIME, TRIAL_ITERATIONS, TRIAL_WARMUP = "3", "50", "5"


def add_parsers(command: CommandFactory) -> None:
    tune = command("tune", "find the most throughput under a latency budget")
    tune.add_argument("project", help="a benchmarked project (perftui projects lists them)")
    tune.add_argument("--max-latency", required=True, help="latency budget in ms")
    tune.add_argument("--stat", default="p90", help="median | p90 | p99 (default p90)")
    tune.add_argument(
        "--budget", help=f"time for the search, e.g. 90s, 10m (default {DEFAULT_BUDGET})"
    )
    tune.add_argument("--trials", help="configurations to measure at most")
    tune.add_argument(
        "--space",
        action="append",
        default=[],
        help="knobs to search, e.g. 'batch=1..64 threads=1,2 requests=auto,2,4 hint=throughput "
        "api=async' (lo..hi: powers of two); the rest from the engine and the cores",
    )
    tune.add_argument(
        "--time", default=TRIAL_TIME, help=f"seconds per trial (default {TRIAL_TIME})"
    )
    tune.add_argument("--iterations", default=TRIAL_ITERATIONS, help="minimum requests per trial")
    tune.add_argument("--warmup", default=TRIAL_WARMUP, help="untimed requests per trial")
    tune.add_argument("--shape", action="append", default=[], help="as bench (default: the last)")
    tune.add_argument("--seed", type=int, default=0, help="seed of the search and the inputs")
    tune.add_argument("--json", action="store_true", help="print one JSON document")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _limits(args: argparse.Namespace, candidates: int) -> Limits:
    from perftui.domain.fields import whole_number
    from perftui.domain.tune_result import Limits, patience
    from perftui.domain.tune_space import parse_duration

    trials = None
    try:
        if args.trials is not None:
            trials = whole_number(args.trials, "trials")
    except ValueError as error:
        raise CliError(f"--trials: {error}") from None
    budget = args.budget or (None if trials else DEFAULT_BUDGET)
    try:
        budget_s = parse_duration(budget) if budget else None
    except ValueError as error:
        raise CliError(f"--budget: {error}") from None
    return Limits(trials=trials, budget_s=budget_s, patience=patience(candidates))


def tune_request(args: argparse.Namespace) -> tuple[BenchmarkRequest, tuple[RunConfig, ...]]:
    """The request every trial shares (project, budget per trial, shapes, seed) and the
    candidate configurations; CliError naming the flag of a bad setting."""
    from perftui.domain.benchform import FORM
    from perftui.domain.errors import InputError
    from perftui.domain.fields import FieldError
    from perftui.domain.records import BenchmarkRequest, Budget
    from perftui.domain.tune_space import candidates, default_space, parse_space

    store = open_store(args)
    project = store.get_project(args.project)
    if project is None:
        raise unknown_project(store, args.project)
    last = store.last_benchmark(project.name)
    try:
        budget = Budget(
            time_s=FORM.parse("time", args.time),
            iterations=FORM.parse("iterations", args.iterations),
            warmup=FORM.parse("warmup", args.warmup),
        )
        shapes = FORM.parse("shapes", ",".join(args.shape)) if args.shape else None
    except FieldError as error:
        raise CliError(f"--{error.field}: {error}") from None
    if shapes is None:
        shapes = last.request.shapes if last else FORM.parse("shapes", "")
    points = shapes.points()
    if len(points) != 1:
        raise CliError("--shape: give one value per dimension; tune one shape at a time")
    try:
        space = parse_space(args.space, default_space(project.engine, cores()))
        found = candidates(space, cores(), dims=points[0])
    except InputError as error:
        raise CliError(f"--space: {error}") from None
    return BenchmarkRequest(project, found, budget, shapes, seed=args.seed), found


def _check_args(args: argparse.Namespace) -> tuple[float, str]:
    from perftui.domain.tune_result import STATS
    from perftui.domain.tune_space import parse_latency_ms

    try:
        budget_ms = parse_latency_ms(args.max_latency)
    except ValueError as error:
        raise CliError(f"--max-latency: {error}") from None
    if args.stat not in STATS:
        raise CliError(f"--stat: {args.stat!r} is not one of {', '.join(STATS)}")
    return budget_ms, args.stat


def trial_line(trial: Trial) -> str:
    from perftui.domain.units import ms

    fps = f"{trial.fps:.1f} fps"
    if trial.throughput and trial.throughput.n > 1:
        fps += f" ±{trial.throughput.relative:.0%}"
    latency = f"{ms(trial.latency.value)} ms" if trial.latency else "no latency"
    noisy = "" if trial.verdict == "stable" else f" [{trial.verdict}]"
    runs = f" x{len(trial.run_ids)}" if len(trial.run_ids) > 1 else ""
    label = trial.config.label()
    return f"trial {trial.number:>3} {label}: {fps}, {latency}: {trial.status}{noisy}{runs}"


def _report(outcome: Outcome) -> None:
    for trial in outcome.trials:
        print(trial_line(trial))
    best = outcome.best
    print(
        f"stopped: {outcome.reason} after {len(outcome.trials)} trials, {outcome.elapsed_s:.0f} s"
    )
    if best is None:
        print(f"no configuration kept the {outcome.stat} within {outcome.budget_ms:g} ms")
        return
    assert best.throughput is not None
    print(
        f"best: {best.config.label()}: {best.fps:.1f} fps "
        f"(95 % {best.throughput.lo:.1f}..{best.throughput.hi:.1f})"
    )
    for trial in outcome.near:
        print(f"  within noise: {trial_line(trial)}")


def cmd_tune(args: argparse.Namespace) -> int:
    from perftui.bench.plan import validate_request
    from perftui.tune.search import Tuner

    budget_ms, stat = _check_args(args)
    request, found = tune_request(args)
    limits = _limits(args, len(found))
    validate_request(request)
    tuner = Tuner(
        request,
        found,
        stat,
        budget_ms,
        limits,
        open_store(args),
        on_trial=lambda t: print(trial_line(t), file=sys.stderr, flush=True),
    )

    def on_signal(_signum: int, _frame: object) -> None:
        tuner.cancel()

    stop_signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {signum: signal.signal(signum, on_signal) for signum in stop_signals}
    try:
        outcome = tuner.run()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if args.json:
        print_json({"project": request.project.name, **outcome.to_dict()})
    else:
        _report(outcome)
    if outcome.cancelled:
        return EXIT_CANCELLED
    return EXIT_OK if outcome.best else EXIT_RUN_FAILED


COMMANDS: dict[str, Command] = {"tune": cmd_tune}
