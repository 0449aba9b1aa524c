"""The verdict of the run selected in Runs, under the runs table: why a run is noisy or
invalid, where the figures in the table cannot say it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from perftui.domain.charts.series import short_label
from perftui.domain.measurement.verdict import STABLE
from perftui.tui.detail.state import DetailState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape
from perftui.tui.kit.tabs import Pane


def verdict_notice(state: DetailState) -> str:
    """'noisy: reason; reason' for the selected run, in markup; '' without a run."""
    run = state.selected
    if run is None:
        return ""
    verdict = state.figures(run).verdict
    head = (
        f"[b]{fmt.verdict_word(verdict.status)}[/] {fmt.when(run.started_at, seconds=True)} "
        f"{escape(short_label(run.config))}" + (" (profiled)" if run.layers else "")
    )
    if verdict.status == STABLE:
        return f"{head}: its 95 % intervals (±) hold; nothing disturbed the run"
    return f"{head}: " + escape(fmt.said("; ".join(verdict.reasons)))


class RunNotice(Pane[DetailState]):
    """One or two lines; redrawn with the other panes when the selection moves."""

    DEFAULT_CSS = """
    RunNotice { height: auto; max-height: 4; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="run-notice")

    def populate(self) -> None:
        self.query_one("#run-notice", Static).update(verdict_notice(self.state))
