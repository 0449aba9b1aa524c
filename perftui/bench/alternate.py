"""Two benchmarks measured alternately, round by round (`perftui compare --measure`).

Round 1 runs A then B, round 2 B then A, and so on: each round's pair is measured within
seconds, so a drift of the machine between rounds falls on both sides of a pair, and
neither side always follows the other (perftui.domain.compare.pairing judges the pairs).
Each round of each side is a fresh worker, as every repetition of `perftui bench` is.
"""

from __future__ import annotations

import uuid
from collections.abc import Generator, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from perftui.bench import protocol
from perftui.domain.compare import Comparison, Side
from perftui.domain.compare.pairing import measure_request
from perftui.domain.errors import InputError
from perftui.domain.forms.bench import MEASURE_TIME_S
from perftui.domain.limits import check_here, pair_host
from perftui.domain.records import BenchmarkRequest, RunResult

if TYPE_CHECKING:
    from perftui.store.database import Store


class Measured(Protocol):
    """What the alternation needs of a client (perftui.bench.client.BenchmarkClient)."""

    request: BenchmarkRequest
    runs: list[RunResult]

    @property
    def total(self) -> int: ...

    @property
    def cancelled(self) -> bool: ...

    def events(self) -> Generator[protocol.Event, None, None]: ...

    def cancel(self) -> None: ...

    def kill(self) -> None: ...


def measure_requests(
    store: Store,
    comparison: Comparison,
    rounds: int,
    time_s: float = MEASURE_TIME_S,
    label: str = "",
    here: bool = True,
) -> tuple[BenchmarkRequest, BenchmarkRequest]:
    """The requests that measure A's and B's compared runs again, `rounds` times each for
    `time_s`, otherwise as their own benchmarks did, under one alternation label (`label`,
    else a new `alternated <token>`); InputError for what cannot be. `here`: on this machine
    only; else both on the projects' one machine (perftui.domain.limits.pair_host)."""
    if comparison.a_name == comparison.b_name:
        raise InputError("measuring alternately needs two different projects")
    projects = [store.get_project(comparison.name(side)) for side in Side]
    for project in projects:
        if project is not None and here:
            check_here(project, "measuring alternately", "compare its runs as they are")
    pair_host([p for p in projects if p is not None], None)
    token = uuid.uuid4().hex[:12]
    a, b = (
        measure_side(
            store,
            f"{side} ({comparison.name(side)})",
            comparison.name(side),
            comparison.run(side),
            rounds,
            token,
            time_s,
            label,
        )
        for side in Side
    )
    return a, b


def measure_side(
    store: Store,
    who: str,
    name: str,
    run: RunResult | None,
    rounds: int,
    token: str,
    time_s: float = MEASURE_TIME_S,
    label: str = "",
) -> BenchmarkRequest:
    """The request that measures project `name`'s `run` again, where the project is measured
    (`who` names the side in an InputError for what cannot be: no run, no project, no settings)."""
    if run is None:
        raise InputError(f"{who} has no successful run to measure again")
    project = store.get_project(name)
    if project is None:
        raise InputError(f"project {name!r} is gone")
    benchmark = store.get_benchmark(run.benchmark_id)
    if benchmark is None:
        raise InputError(
            f"{name}'s compared run has no benchmark settings to measure again (an "
            "imported run?); benchmark the project first"
        )
    return measure_request(benchmark.request, project, run, rounds, token, time_s, label)


class Alternation:
    """Drives two clients' rounds in turn; yields (side, event) with run indices counted
    over both sides (run 3/10 is the third run of the whole measurement)."""

    def __init__(self, a: Measured, b: Measured) -> None:
        self.clients = (a, b)
        self.total = a.total + b.total
        self._done = 0

    def client(self, side: Side) -> Measured:
        return self.clients[0] if side is Side.A else self.clients[1]

    @property
    def cancelled(self) -> bool:
        return any(client.cancelled for client in self.clients)

    def cancel(self) -> None:
        for client in self.clients:
            client.cancel()

    def kill(self) -> None:
        for client in self.clients:
            client.kill()

    def events(self) -> Generator[tuple[Side, protocol.Event], None, None]:
        """Every event of both benchmarks with its side, round by round; a Fatal or a cancel
        ends the measurement (the side that has not started its round is not started)."""
        events_of = {side: self.client(side).events() for side in Side}
        rounds = max(client.request.repetitions for client in self.clients)
        try:
            for number in range(rounds):
                for side in (Side.A, Side.B) if number % 2 == 0 else (Side.B, Side.A):
                    for event in self._round(side, events_of[side]):
                        yield side, event
                        if isinstance(event, protocol.Fatal):
                            return
                    if self.cancelled:
                        return
            for stream in events_of.values():  # each side's last worker says it is done, exits
                for _ in stream:
                    pass
        finally:
            for stream in events_of.values():
                stream.close()

    def _round(self, side: Side, stream: Iterator[protocol.Event]) -> Iterator[protocol.Event]:
        """One side's events up to the end of its round (its last configuration's run)."""
        per_round = len(self.client(side).request.configs)
        for event in stream:
            if isinstance(event, protocol.RunStarted):
                yield replace(event, index=self._done, total=self.total)
            elif isinstance(event, protocol.RunFinished):
                self._done += 1
                yield replace(event, index=self._done - 1)
                if (event.index + 1) % per_round == 0:
                    return
            elif isinstance(event, protocol.BenchmarkDone):
                return
            else:
                yield event
