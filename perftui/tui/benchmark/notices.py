"""What the live run says about the trust its figures deserve: the machine busy before the
start, and the runs that came out noisy or invalid."""

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
