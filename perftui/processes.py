"""Small helpers for the child processes perftui starts (benchmark worker, optimize)."""

from __future__ import annotations

import signal


def exit_description(returncode: int) -> str:
    """'signal SIGKILL' for a process killed by a signal, else 'exit status N'."""
    if returncode >= 0:
        return f"exit status {returncode}"
    try:
        return f"signal {signal.Signals(-returncode).name}"
    except ValueError:
        return f"signal {-returncode}"
