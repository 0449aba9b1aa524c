"""The Latency tab of the project detail: the selected run's latency histogram and its
latency over the run, from the raw samples the store keeps (warm-up drift, throttling and
bimodal latency show here, where the percentiles hide them)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from perftui.domain.charts.distribution import Histogram, Timeline, histogram, over_time
from perftui.domain.charts.series import short_label
from perftui.tui.detail.state import DetailState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.axes import fit_y
from perftui.tui.kit.charts import DataChart
from perftui.tui.kit.format import escape
from perftui.tui.kit.tabs import Pane

BAR = "█"
FEW = "▁"
"""A bin with fewer requests than one row of the chart stands for: a thin mark on the
bottom row, never the full block of a bin with many (plotext fills the row it starts on)."""
MEDIAN, SLOWEST = "•", "x"
"""Markers of the latency-over-time lines (they read apart without colour)."""


class LatencyHistogram(DataChart[Histogram]):
    """Requests per latency bin."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("latency histogram", id=id)

    def plot(self) -> None:
        assert self.data is not None
        plt, data = self.plt, self.data
        labelled = self.size.height >= 8
        rows = self.size.height - 3 - labelled
        axis = fit_y(plt, max(data.counts, default=0), rows)
        row = axis.top / max(1, rows - 1)  # the requests one row of the chart stands for
        # bars at the bins' indices, labelled in ms: plotext fills a lone bar one unit wide
        # point by point, which never ends over a range of a microsecond (equal samples)
        bins = list(enumerate(data.counts))
        many = [(x, n) for x, n in bins if n >= row]
        few = [(x, n) for x, n in bins if 0 < n < row]
        for drawn, marker in ((many, BAR), (few, FEW)):
            if drawn:
                xs, ns = zip(*drawn, strict=True)
                plt.bar(list(xs), list(ns), marker=marker, color="cyan", width=1.0)
        last = len(data.counts)
        plt.xlim(-0.5, last - 0.5)
        edges = [round(last * n / 4) for n in range(5)]
        plt.xticks([edge - 0.5 for edge in edges], [fmt.ms(data.edges[edge]) for edge in edges])
        if labelled:
            tail = f"; {data.beyond} slower not shown" if data.beyond else ""
            thin = f"; {FEW} under {row:,.0f}" if few else ""
            plt.xlabel(f"latency (ms) · requests per bin{thin}{tail}")


class LatencyOverTime(DataChart[Timeline]):
    """The median and the slowest request of consecutive chunks, in the order they ran."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("latency over the run", id=id)

    def plot(self) -> None:
        assert self.data is not None
        plt, data = self.plt, self.data
        plt.plot(data.index, data.slowest, marker=SLOWEST, color="orange")
        plt.plot(data.index, data.median, marker=MEDIAN, color="cyan")
        plt.ylim(0, max(data.slowest) * 1.05 or 1.0)
        if self.size.height >= 8:
            plt.xlabel(f"request · {MEDIAN} median of a chunk of requests  {SLOWEST} slowest")


class DistributionPane(Pane[DetailState]):
    DEFAULT_CSS = """
    DistributionPane LatencyHistogram, DistributionPane LatencyOverTime { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="latency-head", classes="pane-head")
        yield LatencyHistogram(id="latency-histogram")
        yield LatencyOverTime(id="latency-time")

    def populate(self) -> None:
        d = self.state
        head = self.query_one("#latency-head", Static)
        run = d.selected
        samples = d.samples(run) if run is not None else None
        histogram_chart = self.query_one(LatencyHistogram)
        time_chart = self.query_one(LatencyOverTime)
        if run is None or samples is None or len(samples) == 0:
            why = "no run yet" if run is None else "this run kept no latency samples"
            head.update(f"[b]Latency[/] of the selected run: {why}")
            histogram_chart.set_data(None, why)
            time_chart.set_data(None, why)
            return
        verdict = d.figures(run).verdict.status
        head.update(
            f"[b]Latency[/] of {escape(short_label(run.config))} "
            f"({fmt.verdict_word(verdict)}): {len(samples):,} requests, "
            f"{fmt.ms(float(samples.min()))}-{fmt.ms(float(samples.max()))} ms"
        )
        histogram_chart.set_data(histogram(samples), "")
        time_chart.set_data(over_time(samples), "")
