"""`perftui compare A B --measure [N]`: measure both sides' compared configurations again,
alternately for N rounds (perftui.bench.alternate), each into its own project, so that the
comparison is judged from pairs measured seconds apart."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from perftui.cli.common import CliError, positive_seconds, say
from perftui.domain.compare import Comparison
from perftui.domain.errors import InputError
from perftui.domain.forms.bench import MEASURE_TIME_S

if TYPE_CHECKING:
    from perftui.bench.alternate import Alternation
    from perftui.domain.records import RunResult
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


MAX_TIME_S = 3600.0


def parse_time(text: str | None, rounds: int) -> float:
    """--time: the timed seconds of each --measure run (MEASURE_TIME_S when not given)."""
    if text is None:
        return MEASURE_TIME_S
    if not rounds:
        raise CliError("--time: it sets the length of the runs of --measure; give --measure too")
    return positive_seconds("--time", text, MAX_TIME_S)


def measure_alternately(
    store: Store, comparison: Comparison, rounds: int, time_s: float = MEASURE_TIME_S
) -> tuple[list[RunResult], list[RunResult], bool]:
    """A's and B's new runs, and whether the measurement was cancelled; on the projects' one
    machine (a target: under one lease). Bad input (a model that moved, a setting the machine
    cannot honour, projects on two machines) is refused before anything is stored."""
    from perftui.bench.alternate import Alternation, measure_requests
    from perftui.bench.plan import validate_request
    from perftui.cli.targets import shared_host
    from perftui.targets.registry import LOCAL

    try:
        requests = measure_requests(store, comparison, rounds, time_s, here=False)
    except InputError as error:
        raise CliError(f"--measure: {error}") from None
    for request in requests:
        validate_request(request)
    host = requests[0].project.target
    with shared_host(store.path, host, list(requests), store, say) as clients:  # one lease
        return _alternate(Alternation(*clients), comparison, rounds, time_s, host == LOCAL)


def _alternate(
    alternation: Alternation, comparison: Comparison, rounds: int, time_s: float, here: bool
) -> tuple[list[RunResult], list[RunResult], bool]:
    """Follow both sides' rounds with progress on stderr (`here`: warn of a busy machine)."""
    from perftui.bench.protocol import Fatal
    from perftui.cli.bench import busy_warning
    from perftui.cli.interrupts import StopSignals
    from perftui.cli.progress import ProgressPrinter

    printer = ProgressPrinter(sys.stderr, alternation.total)
    printer.note(
        f"measuring A ({comparison.a_name}) and B ({comparison.b_name}) alternately, "
        f"{rounds} rounds of {time_s:g} s"
    )
    warning = busy_warning() if here else None  # it watches this machine, not a target
    if warning:
        printer.note(warning)
    fatal = None
    try:
        with StopSignals(alternation, printer) as signals:
            for side, event in alternation.events():
                signals.say_cancelling()
                printer.show(event)
                if isinstance(event, Fatal):
                    fatal = f"{side}: {event.error}"
    finally:
        printer.close()
    if fatal:
        raise CliError(fatal)
    a, b = (client.runs for client in alternation.clients)
    return a, b, alternation.cancelled
