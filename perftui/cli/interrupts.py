"""Ctrl-C, SIGTERM and a hang-up (an SSH drop) while the CLI measures: the first cancels (the
run in progress stops, finished runs are kept), a second Ctrl-C stops at once."""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, Protocol

from perftui.cli.progress import ProgressPrinter

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
CANCELLING = (
    "cancelling: the run in progress stops, finished runs are kept (Ctrl-C again to stop at once)"
)


Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
"""What signal.signal takes, and gives back (the handler it replaced)."""


class Cancellable(Protocol):
    @property
    def cancelled(self) -> bool: ...

    def cancel(self) -> None: ...

    def kill(self) -> None: ...


class StopSignals:
    """Installs the handlers for a `with` block and restores the previous ones after it."""

    def __init__(self, measuring: Cancellable, printer: ProgressPrinter) -> None:
        self._measuring = measuring
        self._printer = printer
        self._received: list[int] = []
        self._previous: dict[int, Handler] = {}

    def __enter__(self) -> StopSignals:
        self._previous = {s: signal.signal(s, self._on_signal) for s in STOP_SIGNALS}
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _on_signal(self, signum: int, _frame: object) -> None:
        if self._measuring.cancelled and signum == signal.SIGINT:
            self._measuring.kill()
        else:
            self._measuring.cancel()
        self._received.append(signum)

    def say_cancelling(self) -> None:
        """After the first Ctrl-C, say once what it does (printed here, not in the handler)."""
        if self._received == [signal.SIGINT]:
            self._printer.note(CANCELLING)
            self._received.append(-1)
