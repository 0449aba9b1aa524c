"""A tune in progress: trials land on the latency/throughput chart and in the table as the
search child (perftui.tune.runner, through the app's services) hands them over; the end names
the best configuration with its interval, and `b` benchmarks it longer.

Every trial is stored by the runner as it lands, so cancel (x) or leaving keeps them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Footer, Header, Static

from perftui.domain.forms.bench import form_from_request
from perftui.domain.forms.tune import TuneSpec
from perftui.domain.labels import config_labels
from perftui.domain.records import Budget
from perftui.domain.tune.result import Trial, best_trial, within_noise
from perftui.domain.units import playoff_text
from perftui.tui.kit import format as fmt
from perftui.tui.kit.follower import FollowingScreen
from perftui.tui.kit.screen import PerftuiScreen, one_line
from perftui.tui.kit.tables import RowTable, fill_table
from perftui.tui.tune.chart import SWEET, TuneChart

if TYPE_CHECKING:
    from perftui.tune.search import Outcome  # numpy: loaded with the first search only


class TrialLanded(Message):
    def __init__(self, trial: Trial) -> None:
        super().__init__()
        self.trial = trial


def best_line(outcome: Outcome) -> str:
    """The end in one or two lines: why it stopped, the best with its interval."""
    head = f"Stopped: {outcome.reason}; {len(outcome.trials)} trials in {outcome.elapsed_s:.0f} s."
    best = outcome.best
    if best is None or best.throughput is None:
        return f"{head} No configuration kept the {outcome.stat} within {outcome.budget_ms:g} ms."
    near = len(outcome.near)
    return (
        f"{head}\nBest {SWEET} {best.config.label()}: "
        f"{fmt.fps_ci(best.fps, best.throughput)} items/s, "
        f"{outcome.stat} {fmt.ms_ci(best.latency.value if best.latency else None, best.latency)}"
        f" ms; {near} within noise. b: benchmark it longer"
    )


class TuneScreen(FollowingScreen["Outcome | str"], PerftuiScreen):
    TITLE_TEXT = "Tune"
    HELP = (
        "The search runs in a separate process, which measures each trial in a benchmark "
        "worker; every trial is stored in the project as it lands. A trial is a run of half "
        "the asked time; a trial just over the budget that would be the best gets a second. "
        "The search ends with a playoff: the fastest fitting trials (within 20 % of the best, "
        "three at most) are measured again in turn, two rounds, and the one whose rounds "
        "are the fastest wins; Status shows each one's throughput over the winner's "
        "(a lone best is measured once more instead). The chart puts each trial "
        "at its latency (the budget's statistic) and throughput: o within the budget, x over "
        f"it, {SWEET} the best so far (the sweet spot); the vertical line is the budget. The "
        "table gives each trial's figures with their 95 % intervals (±) and its verdict "
        f"({fmt.VERDICT_LEGEND}). Cancel (x) stops the search and keeps the finished trials. "
        "At the end, b opens the benchmark form with the best configuration and a longer time."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "cancel", "Cancel", id="cancel"),
        Binding("b", "bench_best", "Bench best", id="bench_best"),
    ]
    LEAVE_QUESTION = ("Stop the search and go back?", "The finished trials are kept.")
    COLUMNS = (
        ("", "key"),
        ("#", "n"),
        ("Configuration", "config"),
        ("items/s", "fps"),
        ("ms", "ms"),
        ("Status", "status"),
        ("V", "verdict"),
    )
    DEFAULT_CSS = """
    TuneScreen #tune-chart { height: 1fr; min-height: 8; }
    TuneScreen #tune-trials { height: 1fr; }
    TuneScreen #tune-status { height: auto; padding: 0 1; }
    TuneScreen #tune-common { height: auto; max-height: 2; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, spec: TuneSpec) -> None:
        super().__init__()
        self.spec = spec
        self.trials: dict[int, Trial] = {}
        self.outcome: Outcome | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self._progress(), id="tune-status")
        yield TuneChart(self.spec.stat, self.spec.budget_ms, id="tune-chart")
        yield Static("", id="tune-common", markup=False)
        yield RowTable(id="tune-trials")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._show()
        self.follow()

    # ------------------------------------------------------------------ the child

    def run_child(self) -> Outcome | str:
        process = self.perftui.services.tune(self.spec, self.store)
        self.attach_child(process)
        for trial in process.trials():
            self.post_message(TrialLanded(trial))
        assert process.outcome is not None
        return process.outcome

    def child_failed(self, error: Exception) -> Outcome | str:
        return one_line(error)

    def on_trial_landed(self, message: TrialLanded) -> None:
        self.trials[message.trial.number] = message.trial
        self._show()

    def child_ended(self, outcome: Outcome | str, app: App[Any]) -> None:
        if isinstance(outcome, str):
            outcome = fmt.said(outcome)
            app.notify(outcome, title="Tune", severity="error", timeout=12)
            if not self.closed:  # the search is over: nothing to wait for or cancel
                self.query_one("#tune-status", Static).update(f"The search failed: {outcome}")
                self.query_one(TuneChart).set_message("the search failed: no trial to show")
                self.refresh_bindings()
            return
        self.outcome = outcome
        if self.closed:
            app.notify(best_line(outcome).replace("\n", " "), title="Tune", timeout=12)
            return
        self.query_one("#tune-status", Static).update(best_line(outcome))
        self.refresh_bindings()

    # ------------------------------------------------------------------ showing

    def _sorted(self) -> list[Trial]:
        return [self.trials[n] for n in sorted(self.trials)]

    def _progress(self) -> str:
        spec = self.spec
        done = f"{len(self.trials)} trial(s)" if self.trials else "starting"
        cancel = ", cancelling" if self.cancel_requested else ""
        return (
            f"{spec.request.project.name}: most items/s with {spec.stat} <= "
            f"{spec.budget_ms:g} ms among {len(spec.candidates)} configurations; {done}{cancel}"
        )

    def _show(self) -> None:
        trials = self._sorted()
        best = best_trial(trials)
        self.query_one(TuneChart).set_trials(trials, best)
        near = set(map(id, within_noise(best, trials))) if best else set()
        # each trial by the settings that differ between the trials; what they share, once
        labels = config_labels([t.config for t in trials])
        shared = self.query_one("#tune-common", Static)
        shared.update(f"every trial: {labels.common}" if labels.common else "")
        shared.display = bool(labels.common)
        rows = [
            (
                str(t.number),
                (
                    SWEET if t is best else "=" if id(t) in near else "",
                    str(t.number),
                    label,
                    fmt.fps_ci(t.fps if t.throughput else None, t.throughput),
                    fmt.ms_ci(t.latency.value if t.latency else None, t.latency),
                    t.status
                    + (f" x{len(t.run_ids)}" if len(t.run_ids) > 1 else "")
                    + playoff_text(t.standing, interval=False),
                    fmt.verdict_mark(t.verdict),
                ),
            )
            for t, label in zip(trials, labels.labels, strict=True)
        ]
        table = self.query_one("#tune-trials", RowTable)
        fill_table(table, self.COLUMNS, rows, width=self.size.width or None, flex=2)
        if self.running:
            self.query_one("#tune-status", Static).update(self._progress())

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running
        if action == "bench_best":
            return self.outcome is not None and self.outcome.best is not None
        return True

    def action_cancel(self) -> None:
        if self.running:
            self.stop_child()
            self.app.notify("Stopping the search; the finished trials are kept.", title="Tune")
            self.query_one("#tune-status", Static).update(self._progress())

    def action_bench_best(self) -> None:
        best = self.outcome.best if self.outcome else None
        if best is None:
            return
        request = replace(self.spec.request, configs=(best.config,), budget=Budget())
        self.perftui.configure_benchmark(request.project.name, form_from_request(request))

    def leave(self) -> None:
        self.app.pop_screen()
