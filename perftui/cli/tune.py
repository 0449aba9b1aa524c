"""`perftui tune PROJECT --max-latency MS`: search the project's settings for the highest
throughput whose latency statistic stays within the budget (perftui.tune.search).

Every trial is a stored run of the project. Progress goes to stderr; Ctrl-C keeps the
finished trials and reports the best so far.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING

from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    checked_flag,
    open_store,
    print_json,
    unknown_project,
)

if TYPE_CHECKING:
    from perftui.domain.forms.tune import TuneSpec
    from perftui.domain.tune.result import Trial
    from perftui.tune.search import Outcome

FLAGS = {"max_latency": "--max-latency", "max_memory": "--max-memory", "shapes": "--shape"}
"""The flag of a tune form field whose name is not the flag's."""


class FormDefaults(argparse.HelpFormatter):
    """Fills a help line's `{field}` with the tune form's default, read only when the help is
    shown: the form (perftui.domain.forms.tune) loads numpy, which no other command's parser
    needs."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        from perftui.domain.forms.tune import DEFAULT_BUDGET, TUNE_FORM

        text = super()._get_help_string(action)
        return text and text.format_map({**TUNE_FORM.defaults, "budget": DEFAULT_BUDGET})


def add_parsers(command: CommandFactory) -> None:
    from perftui.domain.settings import KNOBS

    tune = command("tune", "find the most throughput under a latency budget")
    tune.formatter_class = FormDefaults
    tune.add_argument("project", help="a benchmarked project (perftui projects lists them)")
    tune.add_argument("--max-latency", required=True, help="latency budget in ms")
    tune.add_argument(
        "--max-memory",
        metavar="MB",
        help="memory limit in MiB: a trial whose peak resident memory is over it does not fit",
    )
    tune.add_argument("--stat", help="median | p90 | p99 (default {stat})")
    tune.add_argument("--budget", help="time for the search, e.g. 90s, 10m (default {budget})")
    tune.add_argument(
        "--trials",
        help="configurations to measure at most (default: a fifth of the space, 8 or more)",
    )
    tune.add_argument(
        "--space",
        action="append",
        default=[],
        help=f"knobs to search ({', '.join(KNOBS)}), e.g. 'batch=1..64 threads=1,2 "
        "requests=auto,2,4 hint=throughput api=async' (lo..hi: powers of two); the rest from "
        "the engine and the cores",
    )
    tune.add_argument(
        "--time", help="seconds per trial, in runs of half; most trials take one (default {time})"
    )
    tune.add_argument(
        "--iterations", help="least requests per trial, as --time (default {iterations})"
    )
    tune.add_argument("--warmup", help="untimed requests per trial (default {warmup})")
    tune.add_argument("--shape", action="append", default=[], help="as bench (default: the last)")
    tune.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the inputs (the search itself has no chance in it: the same "
        "measurements replay the same search)",
    )
    tune.add_argument("--json", action="store_true", help="print one JSON document")


def form_values(args: argparse.Namespace) -> dict[str, str]:
    """The flags as the tune form's fields (perftui.domain.forms.tune); absent ones left out."""
    given = {
        "max_latency": args.max_latency,
        "max_memory": args.max_memory,
        "stat": args.stat,
        "budget": args.budget,
        "trials": args.trials,
        "space": " ".join(args.space) or None,
        "time": args.time,
        "iterations": args.iterations,
        "warmup": args.warmup,
        "shapes": ",".join(args.shape) or None,
    }
    return {name: text for name, text in given.items() if text is not None}


def tune_spec(args: argparse.Namespace) -> TuneSpec:
    """The search the flags ask for (as the dashboard's form builds it); CliError naming the
    flag of a bad setting."""
    from perftui.domain.errors import InputError
    from perftui.domain.forms.fields import FieldError
    from perftui.domain.forms.tune import tune_spec as build
    from perftui.domain.limits import check_seed
    from perftui.engines.capabilities import capabilities
    from perftui.tune.runner import cores

    checked_flag("--seed", check_seed, args.seed)
    store = open_store(args)
    project = store.get_project(args.project)
    if project is None:
        raise unknown_project(store, args.project)
    last = store.last_benchmark(project.name)
    try:
        return build(
            form_values(args),
            project,
            capabilities(project.engine),
            last.request.shapes if last else None,
            cores(),
            args.seed,
        )
    except FieldError as error:
        raise CliError(f"{FLAGS.get(error.field, '--' + error.field)}: {error}") from None
    except InputError as error:
        raise CliError(str(error)) from None


def trial_line(trial: Trial) -> str:
    from perftui.domain.measurement.memory import mib_text
    from perftui.domain.units import ms, playoff_text, spread_text

    fps = f"{trial.fps:.1f} fps{spread_text(trial.throughput)}"
    latency = f"{ms(trial.latency.value)} ms" if trial.latency else "no latency"
    if trial.memory_mib is not None:
        latency += f", {mib_text(trial.memory_mib)} MiB"
    noisy = "" if trial.verdict == "stable" else f" [{trial.verdict}]"
    runs = f" x{len(trial.run_ids)}" if len(trial.run_ids) > 1 else ""
    label = trial.config.label()
    line = f"trial {trial.number:>3} {label}: {fps}, {latency}: {trial.status}{noisy}{runs}"
    return line + playoff_text(trial.standing)


def no_best_text(outcome: Outcome) -> str:
    """Why no best was named: nothing fitted, or what might have was too noisy to judge."""
    from perftui.domain.tune.result import TOO_NOISY

    noisy = sum(trial.status == TOO_NOISY for trial in outcome.trials)
    if noisy:
        return (
            f"no best: {noisy} of {len(outcome.trials)} trials were too noisy to judge (an"
            " interval reaching zero or past ±100 %); tune again with a longer --time on a"
            " quieter machine"
        )
    memory = outcome.max_memory_mib
    within = f" and the memory peak within {memory:g} MiB" if memory is not None else ""
    return f"no configuration kept the {outcome.stat} within {outcome.budget_ms:g} ms{within}"


def _report(outcome: Outcome) -> None:
    from perftui.domain.units import playoff_text

    for trial in outcome.trials:
        print(trial_line(trial))
    best = outcome.best
    print(
        f"stopped: {outcome.reason} after {len(outcome.trials)} trials in {outcome.elapsed_s:.0f} s"
    )
    if best is None:
        print(no_best_text(outcome))
        return
    assert best.throughput is not None
    known = best.throughput.bounded
    interval = f"95 % {best.throughput.lo:.1f}..{best.throughput.hi:.1f}" if known else "±?"
    won = playoff_text(best.standing)
    print(f"best: {best.config.label()}: {best.fps:.1f} fps ({interval}){won}")
    for trial in outcome.near:
        print(f"  within noise: {trial_line(trial)}")


def cmd_tune(args: argparse.Namespace) -> int:
    from perftui.bench.plan import validate_request
    from perftui.targets.registry import LOCAL, TargetBook
    from perftui.tune.runner import TuneProcess

    spec = tune_spec(args)
    validate_request(spec.request)
    store = open_store(args)
    process = TuneProcess(spec, store, TargetBook(store.path).price(LOCAL))

    def on_signal(_signum: int, _frame: object) -> None:
        process.cancel()

    stop_signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {signum: signal.signal(signum, on_signal) for signum in stop_signals}
    try:
        for trial in process.trials():
            print(trial_line(trial), file=sys.stderr, flush=True)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    outcome = process.outcome
    assert outcome is not None
    if args.json:
        print_json({"project": spec.request.project.name, **outcome.to_dict()})
    else:
        _report(outcome)
    if outcome.cancelled:
        return Exit.CANCELLED
    return Exit.OK if outcome.best else Exit.RUN_FAILED


COMMANDS: dict[str, Command] = {"tune": cmd_tune}
