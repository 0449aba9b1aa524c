"""Requests run on threads of their own, a failure raised in the caller: the one way the
ONNX Runtime engine's async requests and the open loop's slots (bench/open_loop.py) run in
parallel. Here, not in bench/, because engines/ may not import bench/."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")


class Parallel(Generic[Item]):
    """`work` on each item, each on a daemon thread; `failed` tells the others to stop."""

    def __init__(self, work: Callable[[Item], None], name: str) -> None:
        self._work, self._name = work, name
        self._failures: list[BaseException] = []

    @property
    def failed(self) -> bool:
        """Whether a thread raised (the rest should stop)."""
        return bool(self._failures)

    def _guarded(self, item: Item) -> None:
        try:
            self._work(item)
        except BaseException as error:  # re-raised in the calling thread
            self._failures.append(error)

    def run(
        self, items: Sequence[Item], tick: Callable[[], None] | None = None, tick_s: float = 0.0
    ) -> None:
        """Start a thread per item and wait for all of them, calling `tick` every `tick_s`
        meanwhile (None: none); then raise the first thing a thread raised."""
        threads = [
            threading.Thread(
                target=self._guarded, args=(item,), name=f"{self._name}-{i}", daemon=True
            )
            for i, item in enumerate(items)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(None if tick is None else tick_s)
                if tick is not None and thread.is_alive():
                    tick()
        if self._failures:
            raise self._failures[0]
