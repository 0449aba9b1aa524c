"""The parent side of a capacity search: the benchmark client (one follower, one protocol)
with the capacity worker as its child, its benchmark stored with the search's objectives."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from perftui.bench import protocol
from perftui.bench.client import BenchmarkClient, RunStore

if TYPE_CHECKING:
    from perftui.domain.records import BenchmarkRequest, RunConfig
    from perftui.domain.traffic.search import CapacitySearch
    from perftui.store import Store


class CapacityClient(BenchmarkClient):
    """`events()` yields the closed-loop run's events, each search run's RunStarted and
    RunFinished (stored as they come), a SearchEnded and BenchmarkDone."""

    worker_command = (sys.executable, "-m", "perftui.bench.capacity_worker")

    def __init__(
        self, request: BenchmarkRequest, search: CapacitySearch, store: Store | None = None
    ) -> None:
        self.search = search
        self._search_store = store
        self._started: dict[int, RunConfig] = {}
        super().__init__(request, store)

    def _register(self, store: RunStore, request: BenchmarkRequest) -> str:
        assert self._search_store is not None
        return self._search_store.add_benchmark(request, self.search)

    def _message(self, start: int, stop: int) -> dict[str, Any]:
        found = self.search.to_dict()
        return {
            "request": self.request.to_dict(),
            "objectives": found["objectives"],
            "budget_s": found["budget_s"],
        }

    def _repetition(self, index: int) -> int:
        return 0  # each search run is a rate of its own

    def _events(self) -> Iterator[protocol.Event]:
        for event in super()._events():
            if isinstance(event, protocol.RunStarted):
                self._started[event.index] = event.config
            yield event

    def _config(self, index: int) -> RunConfig:
        """The rate a dead worker was searching at, where it had said so."""
        return self._started.get(index) or super()._config(index)
