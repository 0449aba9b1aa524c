"""The CLI's progress bar on stderr."""

from __future__ import annotations

import io
import os

from perftui.bench import protocol
from perftui.cli.progress import ProgressPrinter
from perftui.domain.records import RunConfig


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_redrawn_line_never_wraps_on_an_80_column_terminal(monkeypatch):
    monkeypatch.setattr(
        "perftui.cli.progress.shutil.get_terminal_size", lambda fallback: os.terminal_size((80, 24))
    )
    stream = Terminal()
    printer = ProgressPrinter(stream, 12)
    config = RunConfig(batch=16, threads=16, requests=8, hint="cumulative_throughput", api="async")
    printer.show(protocol.RunStarted(10, 12, config))
    printer.show(protocol.Progress(10, 1.0, 1000, 0.5, 12345.6, 123.4))
    lines = [line for line in stream.getvalue().split("\r\x1b[K") if line]
    assert lines and all(len(line) < 80 for line in lines)
    assert lines[-1].startswith("run 11/12 b16")
