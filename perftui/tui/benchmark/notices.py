"""What the live runs (one host, several hosts) say: the machine busy before the start, the
runs that came out noisy or invalid, how the benchmark ended; and the keys they offer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from textual.app import App
from textual.message import Message

from perftui.domain.measurement.verdict import INVALID, NOISY
from perftui.tui.kit import format as fmt


class LiveBusy(Message):
    """The machine was already busy with other work when the benchmark was about to start."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__()
        self.reasons = reasons


def notify_busy(app: App[object], reasons: list[str]) -> None:
    app.notify(
        "; ".join(reasons) + ": expect noisy figures",
        title="The machine is busy",
        severity="warning",
        timeout=10,
    )


def notify_cannot_run(app: App[object], project: str, error: str) -> None:
    """A request that could not start, or whose worker gave up."""
    app.notify(error, title=f"{project}: cannot run", severity="error", timeout=10)


def unsteady_text(verdicts: Sequence[str]) -> str:
    """How many finished runs are not stable, by verdict, and where to read why, short
    enough for one line of a toast at 80 columns: '2 INVALID, 1 noisy; why: Runs tab (o)'
    ('' for none). The live table names each run's verdict."""
    counts = Counter(verdicts)
    said = [f"{counts[v]} {fmt.verdict_word(v)}" for v in (INVALID, NOISY) if counts[v]]
    return f"{', '.join(said)}; why: Runs tab (o)" if said else ""


def notify_end(
    app: App[object], ok: int, other: int, cancelled: bool, unsteady: Sequence[str]
) -> str:
    """Say how the benchmark ended (`other`: runs not ok; `unsteady`: the verdicts of the
    successful runs that are not stable) in one toast of two or three lines, so it covers
    little of the live table; the first line is returned for a status line."""
    verb = "cancelled" if cancelled else "finished"
    text = f"{verb}: {ok} ok" + (f", {other} not ok" if other else "") + " · stored"
    verdicts = unsteady_text(unsteady)
    app.notify(
        f"Benchmark {text}." + (f"\n{verdicts}" if verdicts else ""),
        title="Benchmark",
        severity="warning" if other or cancelled or verdicts else "information",
        timeout=12 if verdicts else None,
    )
    return text


def live_keys(action: str, running: bool) -> bool | None:
    """Whether a live run's key works now: cancel while it runs, open (shown greyed) after."""
    if action == "cancel":
        return running
    if action == "open":
        return None if running else True
    return True


def notify_run_failed(app: App[object], title: str, error: str | None) -> None:
    app.notify(fmt.said(error or "the run failed"), title=title, severity="error", timeout=10)
