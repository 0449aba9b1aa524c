"""What the live runs (one host, several hosts) say: the machine busy before the start, the
runs that came out noisy or invalid, how the benchmark ended; and the keys they offer."""

from __future__ import annotations

from textual.app import App
from textual.message import Message

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


def notify_unsteady(app: App[object], unsteady: list[tuple[str, str]], ok: int) -> None:
    """`unsteady`: (run label, verdict) of the successful runs that are not stable."""
    if not unsteady:
        return
    runs = ", ".join(f"{label} {fmt.verdict_word(verdict)}" for label, verdict in unsteady)
    app.notify(
        f"{len(unsteady)} of {ok} run(s) not stable: {runs}. Their figures are less certain "
        "(wider ±); the project's Runs tab (o) says why.",
        title="Noisy runs",
        severity="warning",
        timeout=12,
    )


def notify_end(
    app: App[object], ok: int, other: int, cancelled: bool, unsteady: list[tuple[str, str]]
) -> str:
    """Say how the benchmark ended (`other`: runs not ok); the same text for a status line."""
    verb = "cancelled" if cancelled else "finished"
    text = f"{verb}: {ok} ok" + (f", {other} not ok" if other else "") + " · stored"
    app.notify(
        f"Benchmark {text}.",
        title="Benchmark",
        severity="warning" if other or cancelled else "information",
    )
    notify_unsteady(app, unsteady, ok)
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
