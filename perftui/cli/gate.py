"""`perftui gate BASELINE CANDIDATE`: did the candidate get slower? Both measured alternately
(perftui.bench.alternate, as `compare --measure`) and judged round by round against
`--max-slowdown` (perftui.domain.regression.gate); exit 0 pass, 1 fail, 3 inconclusive, 2 bad input,
130 interrupted."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    checked_flag,
    open_store,
    output_path,
    positive_seconds,
    print_json,
    say,
    write_output,
)
from perftui.cli.gate_sides import GATE_TIME_S, MODEL_ONLY, SETTINGS, gate_requests
from perftui.domain.forms.bench import DEFAULTS

if TYPE_CHECKING:
    from perftui.bench.client import BenchmarkClient
    from perftui.domain.records import BenchmarkRequest, RunResult
    from perftui.domain.regression.gate import Decision, Schedule
    from perftui.domain.regression.gate_render import GateReport, GateSide

EXIT_PASS, EXIT_FAIL, EXIT_INCONCLUSIVE = Exit.OK, Exit.RUN_FAILED, 3
MAX_BUDGET_S = 86_400.0
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
DEFAULT_STAT = "median"


def add_parsers(command: CommandFactory) -> None:
    from perftui.domain.regression.gate import MAX_SLOWDOWN, ROUNDS

    gate = command(
        "gate",
        "regression gate for CI: is CANDIDATE slower than BASELINE? (exit 0 pass, 1 fail, "
        "3 inconclusive, 2 bad input, 130 interrupted)",
    )
    gate.add_argument("baseline", help="project or model file (.onnx, .xml)")
    gate.add_argument("candidate", help="project or model file (.onnx, .xml)")
    gate.add_argument(
        "--max-slowdown",
        default=f"{MAX_SLOWDOWN * 100:g}%",
        metavar="PCT",
        help="fail when the candidate is slower than this with 95 %% confidence (default 5%%)",
    )
    gate.add_argument(
        "--stat",
        action="append",
        help="throughput | median | p90 | p99 (several, or comma-separated: all must pass; "
        "default median: a busy machine's stalls slow the throughput of a run, rarely its median)",
    )
    gate.add_argument("--rounds", default=str(ROUNDS), help=f"most rounds (default {ROUNDS})")
    gate.add_argument("--budget", metavar="S", help="most seconds in all (default: no limit)")
    gate.add_argument(
        "--time", metavar="S", help=f"timed seconds of each run (default {GATE_TIME_S:g})"
    )
    gate.add_argument("--json", action="store_true", help="print one JSON document")
    gate.add_argument("--markdown", metavar="FILE", help="write a pull-request summary")
    gate.add_argument("--junit", metavar="FILE", help="write JUnit XML, one case per statistic")
    gate.add_argument("--no-save", action="store_true", help="do not store the runs")
    gate.add_argument(
        "--target",
        help="gate on this SSH target (perftui targets add): both sides there under one hold "
        "of the host, a model file's runs in NAME@TARGET as bench's; default: the projects' "
        "machine, else this one",
    )
    models = gate.add_argument_group("how a model file is measured (bench's flags)")
    models.add_argument("--engine", help="openvino | onnxruntime (default openvino)")
    models.add_argument("--device", help="device as the engine names it (default CPU)")
    for name in SETTINGS:
        models.add_argument("--" + name, help=f"as bench's (default {DEFAULTS[name] or 'none'})")
    models.add_argument("--shape", action="append", help="bind dynamic dimensions, as bench's")
    models.add_argument("--data", help="your own input data, as bench's")
    models.add_argument("--seed", type=int, help="seed of the random input data (default 0)")


def _command(args: argparse.Namespace) -> str:
    """The command line that gates the same way again."""
    words = ["perftui", "gate", args.baseline, args.candidate]
    words += ["--max-slowdown", args.max_slowdown, "--rounds", args.rounds]
    for stat in args.stat or ():
        words += ["--stat", stat]
    for flag, value in (
        ("--budget", args.budget),
        ("--time", args.time),
        ("--target", args.target),
    ):
        if value is not None:
            words += [flag, value]
    for name in MODEL_ONLY:
        value = getattr(args, name)
        for item in value if isinstance(value, list) else [] if value is None else [value]:
            words += ["--" + name.replace("_", "-"), str(item)]
    return shlex.join(words)


def _gate_side(role: str, request: BenchmarkRequest, runs: list[RunResult]) -> GateSide:
    from perftui.domain.regression.gate_render import GateSide

    env = next((r.resolved.get("environment") for r in runs if r.resolved.get("environment")), {})
    config = request.configs[0].label()
    p = request.project
    return GateSide(role, p.name, p.model, p.engine, p.device, config, env or {})


def cmd_gate(args: argparse.Namespace) -> int:
    from perftui.bench.plan import validate_request
    from perftui.cli.measure import parse_time
    from perftui.cli.targets import shared_host
    from perftui.domain.forms import options
    from perftui.domain.measurement.statistic import NAMES
    from perftui.domain.regression import gate
    from perftui.domain.regression.gate_render import GateReport
    from perftui.domain.regression.gate_stored import GateSettings, gate_label

    stats = options.parse_choices(",".join(args.stat or [DEFAULT_STAT]), "statistic", NAMES)
    max_slowdown = checked_flag("--max-slowdown", gate.parse_max_slowdown, args.max_slowdown)
    rounds = checked_flag("--rounds", gate.parse_rounds, args.rounds)
    budget = None
    if args.budget is not None:
        budget = positive_seconds("--budget", args.budget, MAX_BUDGET_S)
    time_s = parse_time(args.time, rounds) if args.time is not None else GATE_TIME_S
    outputs = {
        "markdown": output_path(args.markdown) if args.markdown else None,
        "junit": output_path(args.junit) if args.junit else None,
    }
    store = open_store(args)
    settings = GateSettings(max_slowdown, tuple(stats), rounds)
    label = gate_label(uuid.uuid4().hex[:12], settings)
    a, b = gate_requests(store, args, rounds, time_s, label)
    rate = a.configs[0].rate
    if rate is not None and "throughput" in stats:
        raise CliError(
            f"--stat throughput: at {rate:g}/s each side serves the rate it is offered; gate "
            "a latency (median, p90, p99) at a rate, or throughput in a closed loop"
        )
    for request in (a, b):
        validate_request(request)
    schedule = gate.Schedule.for_rounds(rounds, len(stats))
    host = a.project.target
    kept = None if args.no_save else store
    with shared_host(store.path, host, [a, b], kept, say) as clients:  # on a target: one lease
        started = time.monotonic()
        decision, interrupted = _measure(clients, schedule, stats, max_slowdown, budget)
    report = GateReport(
        decision,
        _gate_side("baseline", clients[0].request, clients[0].runs),
        _gate_side("candidate", clients[1].request, clients[1].runs),
        schedule,
        time_s,
        time.monotonic() - started,
        _command(args),
        interrupted,
        stored=not args.no_save,
    )
    _write(report, args.json, outputs)
    if interrupted:
        return Exit.CANCELLED
    return {gate.PASS: EXIT_PASS, gate.FAIL: EXIT_FAIL}.get(decision.outcome, EXIT_INCONCLUSIVE)


def _measure(
    clients: list[BenchmarkClient],
    schedule: Schedule,
    stats: list[str],
    max_slowdown: float,
    budget: float | None,
) -> tuple[Decision, bool]:
    """Both sides' rounds in turn, looking at the schedule's rounds (and once the budget would
    run out before another round ends); the decision and whether it was interrupted."""
    from perftui.bench.alternate import Alternation
    from perftui.bench.protocol import Fatal, RunFinished
    from perftui.cli.bench import busy_warning
    from perftui.cli.interrupts import StopSignals
    from perftui.cli.progress import ProgressPrinter
    from perftui.domain.regression.gate import decide, round_values, saturation
    from perftui.targets.registry import LOCAL

    alternation = Alternation(clients[0], clients[1])
    printer = ProgressPrinter(sys.stderr, alternation.total)
    printer.note(
        f"gating {clients[1].request.project.name} (B) against "
        f"{clients[0].request.project.name} (A): up to {schedule.rounds} rounds, looks after "
        + ", ".join(str(n) for n in schedule.looks)
    )
    here = clients[0].request.project.target == LOCAL
    warning = busy_warning() if here else None  # it watches this machine, not a target
    if warning:
        printer.note(warning)
    started, finished, look, fatal = time.monotonic(), 0, 0, ""
    decision = None
    events = alternation.events()
    try:
        with StopSignals(alternation, printer) as signals:
            for side, event in events:
                signals.say_cancelling()
                printer.show(event)
                if isinstance(event, Fatal):
                    fatal = f"{side}: {event.error}"
                if not isinstance(event, RunFinished) or alternation.cancelled:
                    continue
                finished += 1
                done, odd = divmod(finished, 2)
                if odd:
                    continue
                spent = time.monotonic() - started
                last = done >= schedule.rounds or (
                    budget is not None and spent + spent / done > budget
                )
                if not (schedule.is_look(done) or last):
                    continue
                values = round_values(clients[0].runs, clients[1].runs, stats)
                saturated = saturation(clients[0].runs, clients[1].runs)
                decision = decide(values, max_slowdown, schedule, look, last, saturated)
                look += 1
                printer.note(f"look {look} after {done} rounds: {decision.outcome}")
                if decision.settled or last:
                    break
    finally:
        events.close()
        printer.close()
    if fatal:
        raise CliError(fatal)
    if decision is None or alternation.cancelled:
        values = round_values(clients[0].runs, clients[1].runs, stats)
        final = not alternation.cancelled  # an interrupted gate has nothing to settle
        saturated = saturation(clients[0].runs, clients[1].runs)
        decision = decide(values, max_slowdown, schedule, look, final, saturated)
    return decision, alternation.cancelled


def _write(report: GateReport, as_json: bool, outputs: dict[str, Path | None]) -> None:
    """The table or JSON on stdout, the Markdown and JUnit files, the CI step summary."""
    from perftui.domain.regression.gate_render import (
        gate_document,
        gate_junit,
        gate_markdown,
        gate_text,
    )

    if as_json:
        print_json(gate_document(report))
    else:
        print(gate_text(report))
    markdown = gate_markdown(report)
    if outputs["markdown"] is not None:
        write_output(outputs["markdown"], markdown)
    if outputs["junit"] is not None:
        write_output(outputs["junit"], gate_junit(report))
    summary = os.environ.get(SUMMARY_ENV)
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as stream:
                stream.write(markdown + "\n")
        except OSError as error:
            print(f"perftui: cannot append to ${SUMMARY_ENV}: {error}", file=sys.stderr)


COMMANDS: dict[str, Command] = {"gate": cmd_gate}
