"""Waiting on child processes with a limit: a line on a pipe, a process that must be gone.

Every wait here ends: a hang fails the test with a message instead of stalling the suite.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
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


READ_SYSCALL = {"x86_64": 0, "aarch64": 63, "riscv64": 63}


def reading_stdin(pid: int) -> bool:
    """True while the process's main thread is blocked in read() on its stdin (a worker
    waiting for its request)."""
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        return False
    read = READ_SYSCALL.get(os.uname().machine)
    return len(fields) > 1 and fields[0] == str(read) and int(fields[1], 16) == 0


def wait_until(condition: Callable[[], object], timeout_s: float, what: str) -> None:
    """Poll `condition` until it holds; AssertionError naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout_s:.0f} s")
        time.sleep(0.05)


MEASURING_CPU_S = 3.0
"""A bench worker that has used this much CPU has started, read and compiled the sample model
(well under a second of CPU) and is in its timed window: CPU time, not wall time, since a
loaded machine slows the wall clock's share of both."""


def cpu_seconds(pid: int) -> float:
    """The CPU time the process has used, all its threads (0.0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
