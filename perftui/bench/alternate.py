"""Two benchmarks measured alternately, round by round (`perftui compare --measure`).

Round 1 runs A then B, round 2 B then A, and so on: each round's pair is measured within
seconds, so a drift of the machine between rounds falls on both sides of a pair, and
neither side always follows the other (perftui.domain.compare.pairing judges the pairs).
Each round of each side is a fresh worker, as every repetition of `perftui bench` is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from perftui.bench import protocol
from perftui.bench.client import BenchmarkClient


class Alternation:
    """Drives two clients' rounds in turn; yields (side, event) with run indices counted
    over both sides (run 3/10 is the third run of the whole measurement)."""

    def __init__(self, a: BenchmarkClient, b: BenchmarkClient) -> None:
        self.clients = (a, b)
        self.total = a.total + b.total
        self._done = 0

    @property
    def cancelled(self) -> bool:
        return any(client.cancelled for client in self.clients)

    def cancel(self) -> None:
        for client in self.clients:
            client.cancel()

    def kill(self) -> None:
        for client in self.clients:
            client.kill()

    def events(self) -> Iterator[tuple[int, protocol.Event]]:
        """Every event of both benchmarks, round by round; a Fatal or a cancel ends the
        measurement (the side that has not started its round is not started)."""
        streams = [client.events() for client in self.clients]
        rounds = max(client.request.rounds for client in self.clients)
        try:
            for number in range(rounds):
                for side in (0, 1) if number % 2 == 0 else (1, 0):
                    for event in self._round(side, streams[side]):
                        yield side, event
                        if isinstance(event, protocol.Fatal):
                            return
                    if self.cancelled:
                        return
            for stream in streams:  # each side's last worker says it is done and exits
                for _ in stream:
                    pass
        finally:
            for stream in streams:
                stream.close()

    def _round(self, side: int, stream: Iterator[protocol.Event]) -> Iterator[protocol.Event]:
        """One side's events up to the end of its round (its last configuration's run)."""
        per_round = len(self.clients[side].request.configs)
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
