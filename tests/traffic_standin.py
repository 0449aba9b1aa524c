"""A stand-in engine of known service time for open-loop tests: a Prepared-like object whose
every request sleeps `service_s` (the GIL released, as an engine's request does), with a
switch that stalls the whole engine for a while."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class StandIn:
    def __init__(self, service_s: float, requests: int = 1) -> None:
        self.service_s = service_s
        self.resolved = {"requests": requests}
        self._stall: tuple[float, float] | None = None
        self._lock = threading.Lock()
        self.calls = 0

    def stall(self, at: float, length_s: float) -> None:
        """From perf_counter() `at` for `length_s`, no request completes: one in service then
        finishes when the stall ends."""
        self._stall = (at, at + length_s)

    def slots(self, n: int) -> list[Callable[[], object]]:
        return [self._request] * n

    def _request(self) -> None:
        with self._lock:
            self.calls += 1
        time.sleep(self.service_s)
        if self._stall is not None:
            begin, end = self._stall
            now = time.perf_counter()
            if begin <= now < end:
                time.sleep(end - now)
