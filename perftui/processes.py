"""Small helpers for the child processes perftui starts (benchmark worker, optimize)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Mapping, MutableSequence
from enum import IntEnum


class Exit(IntEnum):
    """perftui's exit statuses, the CLI's and its children's alike (README.md)."""

    OK = 0
    RUN_FAILED = 1
    """A run failed; from a child, also an internal error."""
    BAD_INPUT = 2
    """One line on stderr says why; nothing ran, nothing was stored."""
    CANCELLED = 130


def exit_description(returncode: int) -> str:
    """'signal SIGKILL' for a process killed by a signal, else 'exit status N'."""
    if returncode >= 0:
        return f"exit status {returncode}"
    try:
        return f"signal {signal.Signals(-returncode).name}"
    except ValueError:
        return f"signal {-returncode}"


def keep_last_lines(stream: Iterable[str], lines: MutableSequence[str]) -> None:
    """Read a child's stderr to its end, keeping its non-blank lines in `lines` (a bounded
    deque keeps the last ones); a full pipe would block the child otherwise."""
    try:
        for line in stream:
            if line.strip():
                lines.append(line.rstrip())
    except (OSError, ValueError):  # the pipe was closed under us
        pass


PARENT_ENV = "PERFTUI_PARENT_PID"
"""The pid of the process that started a worker (set by `child_env`, read by the worker)."""
PR_SET_PDEATHSIG = 1
ORPHAN_POLL_S = 0.5


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a worker this process starts: `base` (default: ours) and our pid,
    which the worker's `die_with_parent` checks."""
    return {**(os.environ if base is None else base), PARENT_ENV: str(os.getpid())}


def die_with_parent() -> None:
    """End this worker when the process that started it ends (issue 26: a quantize worker ran
    on for 8 minutes after its CLI was killed). On Linux the kernel sends SIGKILL
    (PR_SET_PDEATHSIG, no thread, nothing to slow a measurement); elsewhere a daemon thread
    checks the parent every ORPHAN_POLL_S. A parent that died before this call (the worker
    was already adopted) ends the worker at once."""
    expected = os.environ.get(PARENT_ENV, "")
    if not expected.isdigit():
        return  # not started by perftui (a test calling main(), a person at a shell)
    parent = int(expected)
    armed = False
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent:
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(ORPHAN_POLL_S)
    os._exit(1)
