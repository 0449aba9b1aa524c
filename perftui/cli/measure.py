"""`perftui compare A B --measure [N]`: measure both sides' compared configurations again,
alternately for N rounds (perftui.bench.alternate), each into its own project, so that the
comparison is judged from pairs measured seconds apart."""

from __future__ import annotations

import sys
import uuid
from typing import TYPE_CHECKING

from perftui.cli.common import CliError
from perftui.domain.compare import Comparison, Side

if TYPE_CHECKING:
    from perftui.domain.records import BenchmarkRequest, RunResult
    from perftui.store import Store

MAX_ROUNDS = 50


def parse_rounds(text: str) -> int:
    try:
        rounds = int(text)
    except ValueError:
        rounds = 0
    if not 2 <= rounds <= MAX_ROUNDS:
        raise CliError(
            f"--measure: {text!r} is not a number of rounds from 2 to {MAX_ROUNDS} "
            "(pairs are judged by their spread, which takes two at least)"
        )
    return rounds


def _request(
    store: Store, comparison: Comparison, side: Side, rounds: int, token: str
) -> BenchmarkRequest:
    from perftui.domain.compare.pairing import measure_request

    name, run = comparison.name(side), comparison.run(side)
    if run is None:
        raise CliError(f"--measure: {side} ({name}) has no successful run to measure again")
    project = store.get_project(name)
    assert project is not None
    if project.target != "local":
        raise CliError(
            f"--measure measures on this machine; {name} is measured on target "
            f"{project.target!r}: compare its runs without --measure"
        )
    benchmark = store.get_benchmark(run.benchmark_id)
    if benchmark is None:
        raise CliError(
            f"--measure: {name}'s compared run has no benchmark settings to measure again "
            "(an imported run?); benchmark it with `perftui bench` first"
        )
    return measure_request(benchmark.request, project, run, rounds, token)


def measure_alternately(
    store: Store, comparison: Comparison, rounds: int
) -> tuple[list[RunResult], list[RunResult], bool]:
    """A's and B's new runs, and whether the measurement was cancelled. Bad input (a model
    that moved, a setting this machine cannot honour) is refused before anything is stored."""
    from perftui.bench.alternate import Alternation
    from perftui.bench.client import BenchmarkClient
    from perftui.bench.plan import validate_request
    from perftui.bench.protocol import Fatal
    from perftui.cli.bench import busy_warning
    from perftui.cli.interrupts import StopSignals
    from perftui.cli.progress import ProgressPrinter

    if comparison.a_name == comparison.b_name:
        raise CliError("--measure: give two different projects")
    token = uuid.uuid4().hex[:12]
    requests: list[BenchmarkRequest] = [
        _request(store, comparison, side, rounds, token) for side in Side
    ]
    for request in requests:
        validate_request(request)
    alternation = Alternation(*(BenchmarkClient(request, store) for request in requests))
    printer = ProgressPrinter(sys.stderr, alternation.total)
    printer.note(
        f"measuring A ({comparison.a_name}) and B ({comparison.b_name}) alternately, "
        f"{rounds} rounds"
    )
    warning = busy_warning()
    if warning:
        printer.note(warning)
    fatal = None
    try:
        with StopSignals(alternation, printer) as signals:
            for side, event in alternation.events():
                signals.say_cancelling()
                printer.show(event)
                if isinstance(event, Fatal):
                    fatal = f"{Side.A if side == 0 else Side.B}: {event.error}"
    finally:
        printer.close()
    if fatal:
        raise CliError(fatal)
    a, b = (client.runs for client in alternation.clients)
    return a, b, alternation.cancelled
