"""The live charts of a benchmark in progress: one line per run, each with its own marker
and colour, which the runs table repeats in its first column."""

from __future__ import annotations

from collections.abc import Collection

from rich.text import Text
from textual.widgets import Static

from perftui.domain.charts.series import LiveLine
from perftui.tui.kit.axes import fit_x, fit_y
from perftui.tui.kit.charts import Chart, glyph

MARKERS = ("hd", "dot", "x", "+", "*", "o", "#", "@")
COLORS = ("cyan", "orange", "green", "magenta", "blue", "red", "orange+", "white")
ANSI = {"cyan": 6, "orange": 3, "green": 2, "magenta": 5, "blue": 4, "red": 1, "orange+": 11}
"""The ANSI colour plotext uses for each of COLORS (white: the terminal's foreground)."""


def series_key(n: int) -> Text:
    """The marker and colour of line `n` of a chart, for a legend kept outside the chart
    (a table column), so lines are told apart with NO_COLOR and in narrow charts."""
    marker, color = MARKERS[n % len(MARKERS)], COLORS[n % len(COLORS)]
    code = ANSI.get(color)
    return Text(glyph(marker), style=f"bold color({code})" if code else "bold")


class LiveChart(Chart):
    """Throughput or latency of the runs of a benchmark in progress, one line per run."""

    def __init__(self, metric: str, *, id: str | None = None) -> None:
        title = "throughput (items/s)" if metric == "throughput" else "latency (ms, median)"
        super().__init__(title, id=id)
        self.metric = metric
        self.lines: list[LiveLine] = []
        self.message = WAITING

    def set_lines(self, lines: list[LiveLine]) -> None:
        if lines == self.lines:
            return
        self.lines = lines
        self.refresh()

    def values(self, line: LiveLine) -> tuple[float, ...]:
        return line.throughput_fps if self.metric == "throughput" else line.latency_ms

    def has_data(self) -> bool:
        return any(line.xs for line in self.lines)

    def plot(self) -> None:
        plt = self.plt
        for line in self.lines:
            # the run's index picks marker and colour, as in the runs table's key column
            n = line.index
            ys = self.values(line)
            label = None if self.narrow or len(self.lines) > 6 else line.label
            plt.plot(
                list(line.xs),
                list(ys),
                marker=MARKERS[n % len(MARKERS)],
                color=COLORS[n % len(COLORS)],
                label=label,
            )
        # the y axis is ours, from 0 to above every point of every run: plotext's own
        # follows the points drawn before, so a new run's first point sat on the old floor
        top = max((y for line in self.lines for y in self.values(line)), default=0.0)
        fit_y(plt, top, self.size.height - 4 - (not self.narrow))
        # seconds from 0 in round, even steps (plotext's own read 0.26, 0.71, 1.16, ...)
        fit_x(
            plt, max((x for line in self.lines for x in line.xs), default=0.0), self.size.width - 10
        )
        if self.narrow:  # no room for an x label: the title says the x unit
            plt.title(f"{self.chart_title}, x: {X_UNIT}")
        else:
            plt.title(self.chart_title)
            plt.xlabel(f"{X_UNIT} measured")


X_UNIT = "seconds"
"""The x axis of the live charts: seconds of the run's timed window."""
WAITING = "waiting for the first measurements"


def nothing_measured(statuses: list[str], cancelled: bool) -> str:
    """What the live charts say when a benchmark ended without one measurement."""
    failed = statuses.count("failed")
    if not statuses:
        return "nothing was measured: the benchmark could not start"
    if failed == len(statuses):
        runs = "the run" if failed == 1 else f"all {failed} runs"
        return f"{runs} failed: nothing was measured"
    if cancelled:
        return "cancelled before the first measurement"
    return "nothing was measured"


class ChartLag(Static):
    """Says, over the charts' top row, that they show fewer finished runs than the table
    ('chart: 6 of 8 runs') while paced redraws keep them behind; hidden once they catch
    up. Drawn over the charts, so showing it never lays them out (and redraws them) again."""

    DEFAULT_CSS = """
    ChartLag {
        position: absolute;
        width: auto;
        height: 1;
        padding: 0 1;
        text-style: reverse;
        display: none;
    }
    """

    said = ""

    def show_lag(self, finished: Collection[int], charted: Collection[int]) -> None:
        """`finished`: the runs in the table that have points; `charted`: the runs the
        charts drew."""
        behind = sum(1 for n in finished if n not in charted)
        said = f"chart: {len(finished) - behind} of {len(finished)} runs" if behind else ""
        if said != self.said:
            self.said = said
            self.update(Text(said))
            self.display = bool(said)
