"""The Latency Distribution tab of the Model Performance Summary: the CDF of A's and B's
compared runs, one over the other (a shift, a longer tail or two modes show at a glance)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from perftui.domain.charts.distribution import cdf
from perftui.domain.charts.series import short_label
from perftui.domain.compare import Side
from perftui.tui.compare.charts import MARKERS, PLOT_COLORS, side_text
from perftui.tui.compare.state import SummaryState
from perftui.tui.kit.charts import Chart
from perftui.tui.kit.tabs import Pane

Curve = tuple[list[float], list[float]]


class CdfChart(Chart):
    """Share of requests (y) at or under a latency (x), one line per side with its marker."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("latency distribution", id=id)
        self.curves: dict[Side, Curve] = {}
        self.message = "no latency samples on either side"

    def set_curves(self, curves: dict[Side, Curve]) -> None:
        self.curves = curves
        self.refresh()

    def has_data(self) -> bool:
        return any(xs for xs, _ in self.curves.values())

    def plot(self) -> None:
        plt = self.plt
        for side, (xs, ys) in self.curves.items():
            if xs:
                plt.plot(xs, [y * 100 for y in ys], marker=MARKERS[side], color=PLOT_COLORS[side])
        plt.ylim(0, 100)
        if self.size.height >= 8:
            plt.xlabel("latency (ms) · y: % of requests at or under it")


class LatencyDistributionPane(Pane[SummaryState]):
    DEFAULT_CSS = "LatencyDistributionPane CdfChart { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield Static("", id="cdf-head", classes="pane-head")
        yield CdfChart(id="cmp-cdf")

    def populate(self) -> None:
        s = self.state
        c = s.comparison
        curves: dict[Side, Curve] = {}
        legend: list[Text | str] = []
        for side in Side:
            run = c.run(side)
            samples = s.samples(run) if run is not None else None
            if legend:
                legend.append("   ")
            mark = side_text(side, f"{MARKERS[side]} {side} {c.name(side)}", bold=True)
            if run is None or samples is None or len(samples) == 0:
                legend += [mark, " no samples"]
                continue
            curves[side] = cdf(samples)
            legend += [mark, f" {short_label(run.config)}, {len(samples):,} requests"]
        self.query_one("#cdf-head", Static).update(Text.assemble(*legend))
        self.query_one(CdfChart).set_curves(curves)
