"""The CLI's progress display on stderr: a redrawn bar on a terminal, a line per run otherwise."""

from __future__ import annotations

import shutil
import time
from typing import Protocol

from perftui.bench import protocol
from perftui.domain.units import ms

BAR = 24
REDRAW_S = 0.2


class Stream(Protocol):
    """What the printer writes to: a text stream (stderr, or a host's lines in a fleet)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...

    def isatty(self) -> bool: ...


class ProgressPrinter:
    def __init__(self, stream: Stream, total: int) -> None:
        self._stream = stream
        self._total = total
        self._tty = stream.isatty()
        self._label = ""
        self._phase = ""
        self._last_draw = 0.0
        self._dirty_line = False

    def note(self, text: str) -> None:
        self._clear()
        self._stream.write(text + "\n")
        self._stream.flush()

    def show(self, event: protocol.Event) -> None:
        if isinstance(event, protocol.RunStarted):
            self._label = f"run {event.index + 1}/{event.total} {event.config.label()}"
            self._phase = "starting"
            self._draw(0.0, "", force=True)
        elif isinstance(event, protocol.PhaseChanged):
            self._phase = event.phase.replace("_", " ")
            self._draw(0.0, "", force=True)
        elif isinstance(event, protocol.Progress):
            self._phase = "timed"
            detail = f"{event.throughput_fps:,.1f} fps  {ms(event.latency_ms)} ms"
            self._draw(event.fraction, detail)
        elif isinstance(event, protocol.RunFinished):
            run = event.run
            if run.status == "ok" and run.latency_ms is not None:
                median = ms(run.latency_ms.median)
                result = f"{run.throughput_fps:,.1f} fps, median {median} ms"
            else:
                result = f"{run.status}: {run.error}"
            self.note(f"run {event.index + 1}/{self._total} {run.config.label()}: {result}")

    def _draw(self, fraction: float, detail: str, force: bool = False) -> None:
        if not self._tty:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < REDRAW_S:
            return
        self._last_draw = now
        filled = round(fraction * BAR)
        bar = "#" * filled + "-" * (BAR - filled)
        line = f"{self._label} [{bar}] {self._phase} {detail}"
        # a line that wraps cannot be redrawn with \r: every tick would scroll a new one
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self._stream.write("\r\x1b[K" + line[: max(width, 20)])
        self._stream.flush()
        self._dirty_line = True

    def _clear(self) -> None:
        if self._dirty_line:
            self._stream.write("\r\x1b[K")
            self._dirty_line = False

    def close(self) -> None:
        self._clear()
        self._stream.flush()
