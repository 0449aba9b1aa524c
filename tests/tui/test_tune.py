"""The tune form and the live tune screen, with a scripted search (no engines)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from textual.widgets import Input

from perftui.cli.entry import build_parser
from perftui.cli.tune import tune_spec as cli_spec
from perftui.domain.forms.tune import TuneSpec
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.tune.result import Trial
from perftui.tui.tune.chart import SWEET, TuneChart
from perftui.tui.tune.form import TuneForm
from perftui.tui.tune.live import TuneScreen
from perftui.tune.search import Outcome
from tests.tui.snapshot_helpers import settle

pytestmark = pytest.mark.tui


def trial(spec: TuneSpec, n: int, fps: float, ms: float, budget: float) -> Trial:
    config = spec.candidates[n % len(spec.candidates)]
    status = "fits" if ms <= budget else "over"
    return Trial(
        n,
        config,
        status,
        Interval(fps, fps * 0.98, fps * 1.02, 10),
        Interval(ms, ms * 0.95, ms * 1.05, 100),
        "stable",
        (),
        (f"run{n}",),
    )


@dataclass
class FakeTuning:
    spec: TuneSpec
    gate: threading.Event | None = None
    outcome: Outcome | None = None
    landed: list[Trial] = field(default_factory=list)
    cancelled: bool = False

    def trials(self) -> Iterator[Trial]:
        budget = self.spec.budget_ms
        for n, (fps, ms) in enumerate([(300, 2.0), (520, 4.0), (700, 9.0), (610, 4.5)], 1):
            if self.cancelled:
                break
            found = trial(self.spec, n, fps, ms, budget)
            self.landed.append(found)
            yield found
            if self.gate is not None and n == 2:
                self.gate.wait(10)
        reason = "cancelled" if self.cancelled else "4 trials measured"
        self.outcome = Outcome(
            tuple(self.landed), self.spec.stat, budget, reason, 12.0, 10, self.cancelled
        )

    def cancel(self) -> None:
        self.cancelled = True
        if self.gate is not None:
            self.gate.set()

    def kill(self) -> None:
        self.cancel()


@pytest.fixture
def tunings(services) -> list[FakeTuning]:
    made: list[FakeTuning] = []
    services.cores = lambda: 4
    services.gate_tune = None

    def tune(spec, store):
        made.append(FakeTuning(spec, services.gate_tune))
        return made[-1]

    services.tune = tune
    return made


async def open_form(pilot) -> TuneForm:
    await pilot.press("t")
    await settle(pilot, lambda: isinstance(pilot.app.screen, TuneForm))
    assert isinstance(pilot.app.screen, TuneForm)
    return pilot.app.screen


async def tuned(pilot) -> TuneScreen:
    """A search under a 5 ms budget, started from the form and run to its end."""
    form = await open_form(pilot)
    form.query_one("#t-max_latency", Input).value = "5"
    await pilot.press("ctrl+r")
    app = pilot.app
    await settle(pilot, lambda: isinstance(app.screen, TuneScreen) and not app.screen.running)
    assert isinstance(app.screen, TuneScreen)
    return app.screen


async def test_the_form_says_what_is_wrong_under_the_field(app, tunings) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        form.query_one("#t-max_latency", Input).value = "fast"
        form.query_one("#t-stat", Input).value = "p50"
        form.query_one("#t-trials", Input).value = "0"
        await pilot.pause()
        assert "not a latency" in str(form.query_one("#n-max_latency").render())
        assert "p50" in str(form.query_one("#n-stat").render())
        assert form.query_one("#n-trials").has_class("error")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TuneForm) and not tunings


async def test_the_form_builds_the_search_the_cli_builds(app, db, tunings, monkeypatch) -> None:
    monkeypatch.setattr("perftui.tune.runner.cores", lambda: 4)
    typed = {"max_latency": "5", "stat": "p99", "budget": "2m", "trials": "7", "time": "1.5"}
    space = "batch=1..8 threads=1,2 streams=1 requests=1,2 hint=throughput api=async"
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        for name, text in {**typed, "space": space}.items():
            form.query_one(f"#t-{name}", Input).value = text
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: bool(tunings))
    name = tunings[0].spec.request.project.name  # the project under the cursor
    args = build_parser().parse_args(
        [
            *("--db", str(db), "tune", name, "--max-latency", "5", "--stat", "p99"),
            *("--budget", "2m", "--trials", "7", "--time", "1.5", "--space", space),
        ]
    )
    assert tunings[0].spec == cli_spec(args)


async def test_trials_land_and_cancel_keeps_them(app, services, tunings) -> None:
    services.gate_tune = threading.Event()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        form.query_one("#t-max_latency", Input).value = "5"
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: isinstance(app.screen, TuneScreen) and bool(app.screen.trials))
        screen = app.screen
        assert isinstance(screen, TuneScreen)
        await pilot.press("x")
        await settle(pilot, lambda: not screen.running)
        assert screen.outcome is not None and screen.outcome.cancelled
        assert [t.number for t in screen.outcome.trials] == [1, 2]
        assert screen.query_one("#tune-trials").row_count == 2


async def test_the_end_names_the_best_and_b_benchmarks_it(app, tunings) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await tuned(pilot)
        assert screen.outcome.best.number == 4  # 610 items/s at 4.5 ms; 700 is over
        assert "Best @" in str(screen.query_one("#tune-status").render())
        await pilot.press("b")
        await settle(pilot, lambda: type(app.screen).__name__ == "BenchmarkConfigScreen")
        assert type(app.screen).__name__ == "BenchmarkConfigScreen"


def test_tune_result_snapshot(snap_compare, app, tunings):
    async def before(pilot) -> None:
        await tuned(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


async def test_the_chart_shows_the_best_where_a_legend_would_sit(app, tunings) -> None:
    """The best trial at the top left (least latency, most items/s) is drawn, not hidden
    under a legend; the key is in the x label."""
    async with app.run_test(size=(80, 24)) as pilot:
        chart = (await tuned(pilot)).query_one(TuneChart)
        spec = tunings[0].spec
        best = trial(spec, 1, 900.0, 0.5, 5.0)
        chart.set_trials([best, trial(spec, 2, 300.0, 4.0, 5.0)], best)
        await pilot.pause()
        text = chart.render()
        drawn = text.plain if hasattr(text, "plain") else str(text)
        assert SWEET in drawn and "sweet spot" not in drawn
        assert f"{SWEET} best" in drawn


async def test_the_trials_table_says_once_what_every_trial_shares(app, tunings) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await tuned(pilot)
        said = str(screen.query_one("#tune-common").render())
        assert said.startswith("every trial: ")
        common = said.removeprefix("every trial: ").split()
        table = screen.query_one("#tune-trials")
        labels = [str(table.get_row_at(n)[2]) for n in range(table.row_count)]
        assert common and len(set(labels)) == len(labels) == 4
        for label, config in zip(labels, (t.config for t in screen._sorted()), strict=True):
            assert not set(label.split()) & set(common)  # said once, above the table
            named = set(label.split()) | set(common)
            assert f"b{config.batch}" in named and config.api in named
