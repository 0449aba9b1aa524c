"""Waiting on child processes with a limit: a line on a pipe, a process that must be gone.

Every wait here ends: a hang fails the test with a message instead of stalling the suite.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import IO

LINE_TIMEOUT_S = 90.0


def read_line(stream: IO[str], timeout_s: float = LINE_TIMEOUT_S) -> str:
    """The next line of a child's pipe ("" at its end); AssertionError after `timeout_s`."""
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout_s)
    if not box:
        raise AssertionError(f"no line from the child within {timeout_s:.0f} s")
    return box[0]


def progress_line(stream: IO[str]) -> str:
    """The next line of `perftui bench`'s progress, past the warning a busy machine gets."""
    line = read_line(stream)
    return read_line(stream) if line.startswith("warning: the machine is busy") else line


def read_until(stream: IO[str], text: str, timeout_s: float = LINE_TIMEOUT_S) -> list[str]:
    """Lines up to and including the first that contains `text`; AssertionError at the end
    of the stream or after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    lines: list[str] = []
    while True:
        line = read_line(stream, max(0.1, deadline - time.monotonic()))
        if not line:
            raise AssertionError(f"the stream ended before a line with {text!r}: {lines}")
        lines.append(line)
        if text in line:
            return lines


def process_gone(pid: int) -> bool:
    """True when no process `pid` runs any more (a zombie waiting to be reaped counts as
    gone: it runs nothing and holds no resources but its table entry)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    except (OSError, IndexError):  # no /proc: ask the kernel directly
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return state in ("Z", "X")
