"""The tune's chart: each trial a point of latency (the budget's statistic) against
throughput, the budget a vertical line, the best so far a marker of its own (the sweet spot)
so it reads without colour."""

from __future__ import annotations

from perftui.domain.tune_result import FITS, Trial
from perftui.tui.kit.charts import Chart

SWEET = "@"
"""The best trial's marker; the table's key column repeats it."""
MARKERS = {FITS: "o", "over": "x", "stopped early": "x"}


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
        shown = [t for t in self.trials if t.latency is not None and t is not self.best]
        for status, marker in MARKERS.items():
            points = [t for t in shown if t.status == status]
            if points:
                xs = [t.latency.value for t in points if t.latency]
                label = None if self.narrow else ("within" if status == FITS else status)
                plt.scatter(xs, [t.fps for t in points], marker=marker, label=label)
        plt.vline(self.budget_ms, color="red")
        best = self.best
        if best is not None and best.latency is not None:
            label = None if self.narrow else "sweet spot"
            plt.scatter([best.latency.value], [best.fps], marker=SWEET, color="green", label=label)
        self._title(self.chart_title)
        if not self.narrow:
            plt.xlabel(f"| = budget {self.budget_ms:g} ms")
