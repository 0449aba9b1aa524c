"""The tune's chart: each trial a point of latency (the budget's statistic) against
throughput with its throughput interval, the budget a vertical line, the best so far a
marker of its own (the sweet spot) so it reads without colour. The key is in the x label,
not a plotext legend, which would sit on the points near the top left (where the best
usually is)."""

from __future__ import annotations

from perftui.domain.tune.result import FITS, STOPPED, Trial
from perftui.tui.kit.axes import scatter_axes
from perftui.tui.kit.charts import Chart, draw_interval

SWEET = "@"
"""The best trial's marker; the table's key column repeats it."""
MARKERS = {FITS: "o", "over": "x", STOPPED: "x"}


class TuneChart(Chart):
    def __init__(self, stat: str, budget_ms: float, *, id: str | None = None) -> None:
        super().__init__(f"items/s by {stat} latency (ms)", id=id)
        self.budget_ms = budget_ms
        self.trials: list[Trial] = []
        self.best: Trial | None = None
        self.message = "waiting for the first trial"

    def set_trials(self, trials: list[Trial], best: Trial | None) -> None:
        if (trials, best) == (self.trials, self.best):
            return
        self.trials, self.best = trials, best
        self.refresh()

    def has_data(self) -> bool:
        return any(t.latency is not None for t in self.trials)

    def plot(self) -> None:
        plt = self.plt
        placed = [t for t in self.trials if t.latency is not None]
        labelled = self.size.height >= 9
        _, y_axis = scatter_axes(
            plt,
            [t.latency.value for t in placed if t.latency] + [self.budget_ms],
            [t.throughput.hi if t.throughput else t.fps for t in placed],
            (self.size.width, self.size.height),
            labelled,
        )
        row = y_axis.top / max(1, self.size.height - 3 - labelled)
        for trial in placed:
            interval = trial.throughput
            # an interval within one row would draw its ends over the point itself
            if interval and interval.bounded and trial.latency and interval.hi - interval.lo > row:
                draw_interval(plt, trial.latency.value, interval, upright=True)
        plt.vline(self.budget_ms, color="red")
        shown = [t for t in placed if t is not self.best]
        for status, marker in MARKERS.items():
            points = [t for t in shown if t.status == status and t.latency]
            if points:
                xs = [t.latency.value for t in points if t.latency]
                plt.scatter(xs, [t.fps for t in points], marker=marker)
        best = self.best
        if best is not None and best.latency is not None:
            plt.scatter([best.latency.value], [best.fps], marker=SWEET, color="green")
        self._title(self.chart_title)
        if labelled:
            plt.xlabel(f"o fits  x over  {SWEET} best  | budget {self.budget_ms:g} ms  ┃ 95 %")
