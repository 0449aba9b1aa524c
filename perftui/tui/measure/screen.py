"""A and B measured again, alternately (A B, B A, ...), as `perftui compare A B --measure`
does: each round's runs land in the table as they finish, and the end judges B/A from the
rounds' pairs (perftui.domain.compare.pairing), the verdict to trust on a shared machine.

Every run is stored in its project as it lands, so cancel (x) or leaving keeps them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Footer, Header, Static

from perftui.bench import protocol
from perftui.domain.charts.series import short_label
from perftui.domain.compare import Comparison, Side, compare_projects
from perftui.domain.forms.bench import MEASURE_ROUNDS, MEASURE_TIME_S
from perftui.domain.measurement.figures import Figures, figures_once
from perftui.domain.records import RunResult
from perftui.tui.kit import format as fmt
from perftui.tui.kit.follower import FollowingScreen
from perftui.tui.kit.samples import stored_samples
from perftui.tui.kit.screen import PerftuiScreen, one_line
from perftui.tui.kit.tables import RowTable, fill_table


class RunLanded(Message):
    def __init__(self, side: Side, run: RunResult, done: int, total: int) -> None:
        super().__init__()
        self.side, self.run, self.done, self.total = side, run, done, total


class MeasureScreen(FollowingScreen["Comparison | str"], PerftuiScreen):
    TITLE_TEXT = "Measure A and B alternately"
    HELP = (
        "A's and B's compared runs are measured again, alternately: A then B in round 1, B "
        f"then A in round 2, and so on, {MEASURE_ROUNDS} rounds, each run a fresh benchmark "
        f"worker measuring for {MEASURE_TIME_S:g} s with the settings of the run it repeats "
        "(two workers differ by more than a longer run averages away). A shared machine's "
        "speed drifts between moments by more than many differences worth finding; the two "
        "runs of a round are seconds apart, so B/A judged round by round cancels that drift. "
        "Each run is stored in its project as it lands; cancel (x) keeps the finished ones. "
        "The table gives each run's figures with their 95 % intervals and its verdict "
        f"({fmt.VERDICT_LEGEND}). `perftui compare A B --measure` does the same."
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "cancel", "Cancel", id="cancel")]
    LEAVE_QUESTION = ("Stop measuring and go back?", "The finished runs are kept.")
    COLUMNS = (
        ("Round", "round"),
        ("", "side"),
        ("Project", "project"),
        ("Configuration", "config"),
        ("items/s", "fps"),
        ("median ms", "ms"),
        ("V", "verdict"),
    )
    DEFAULT_CSS = """
    MeasureScreen #measure-status { height: auto; padding: 0 1; }
    MeasureScreen #measure-runs { height: 1fr; }
    """

    def __init__(self, comparison: Comparison, rounds: int = MEASURE_ROUNDS) -> None:
        super().__init__()
        self.comparison = comparison
        self.rounds = rounds
        self.landed: list[tuple[Side, RunResult]] = []
        self.figures: dict[str, Figures] = {}
        """Each landed run's figures by id, computed once however often the table redraws."""
        self.progress = (0, 2 * rounds)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self._status(), id="measure-status")
        yield RowTable(id="measure-runs")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._show()
        self.follow()

    # ------------------------------------------------------------------ the child

    def run_child(self) -> Comparison | str:
        services, store = self.perftui.services, self.store
        requests = services.measure_requests(store, self.comparison, self.rounds)
        for request in requests:
            services.validate(request)
        alternation = services.alternate(*(services.client(r, store) for r in requests))
        self.attach_child(alternation)
        for side, event in alternation.events():
            if isinstance(event, protocol.Fatal):
                return event.error
            if isinstance(event, protocol.RunFinished):
                self.post_message(RunLanded(side, event.run, event.index + 1, alternation.total))
        a, b = (client.runs for client in alternation.clients)
        c = self.comparison
        return compare_projects(
            c.a_name, a, c.b_name, b, stat=c.stat, samples=stored_samples(store)
        )

    def child_failed(self, error: Exception) -> Comparison | str:
        return one_line(error)

    def on_run_landed(self, message: RunLanded) -> None:
        self.landed.append((message.side, message.run))
        self.progress = (message.done, message.total)
        self._show()

    def child_ended(self, outcome: Comparison | str, app: App[Any]) -> None:
        if isinstance(outcome, str):
            app.notify(outcome, title="Measure", severity="error", timeout=12)
            if not self.closed:
                self.query_one("#measure-status", Static).update(f"Not measured: {outcome}")
            return
        found = [d.text for d in (outcome.throughput, outcome.latency) if d is not None]
        verdict = "; ".join(found) or "nothing to judge: no run finished on both sides"
        if found and outcome.settings_note:
            verdict += f" ({fmt.said(outcome.settings_note)})"
        app.notify(verdict, title="Measured alternately", timeout=12)
        if not self.closed:
            rounds = f"{outcome.paired_rounds} rounds paired" if outcome.paired_rounds else ""
            self.query_one("#measure-status", Static).update(
                f"{verdict}\n{rounds or 'fewer than two rounds finished on both sides'}; "
                "Escape: back to compare"
            )
            self.refresh_bindings()

    # ------------------------------------------------------------------ showing

    def _status(self) -> str:
        c, (done, total) = self.comparison, self.progress
        cancel = ", cancelling" if self.cancel_requested else ""
        return (
            f"A ({c.a_name}) and B ({c.b_name}) measured alternately, {self.rounds} rounds: "
            f"run {done}/{total} done{cancel}"
        )

    def _show(self) -> None:
        samples = stored_samples(self.store)
        rows = []
        for number, (side, run) in enumerate(self.landed):
            figures = figures_once(self.figures, run, samples)
            median = run.latency_ms.median if run.latency_ms else None
            cells = (
                str(run.repetition + 1),
                str(side),
                self.comparison.name(side),
                short_label(run.config),
                fmt.fps_ci(run.throughput_fps if run.status == "ok" else None, figures.throughput),
                fmt.ms_ci(median, figures.latency.get("median")),
                fmt.verdict_mark(figures.verdict.status if run.status == "ok" else None),
            )
            rows.append((str(number), cells))
        table = self.query_one("#measure-runs", RowTable)
        fill_table(table, self.COLUMNS, rows, width=self.size.width or None, flex=2)
        if self.running:
            self.query_one("#measure-status", Static).update(self._status())

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.running if action == "cancel" else True

    def action_cancel(self) -> None:
        if self.running:
            self.stop_child()
            self.app.notify("Stopping; the finished runs are kept.", title="Measure")
            self.query_one("#measure-status", Static).update(self._status())

    def leave(self) -> None:
        self.app.pop_screen()
