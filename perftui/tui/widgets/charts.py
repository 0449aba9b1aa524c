"""Charts drawn with textual-plotext: each subclass draws on its own `self.plt` in `plot()`.

The figure is rebuilt on every render from the widget's data and current size, so charts
follow resizes; below `MIN_WIDTH` x `MIN_HEIGHT` cells they show one line of text instead.
Building a figure is the costly part of a frame, so the setters ask for a render only when
the data really changed.
Series use distinct markers as well as colours, so they stay apart with NO_COLOR.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

from perftui.domain.series import LiveLine, Scaling

MARKERS = ("hd", "dot", "x", "+", "*", "o", "#", "@")
COLORS = ("cyan", "orange", "green", "magenta", "blue", "red", "orange+", "white")
GLYPHS = {"hd": "▞", "dot": "•"}
"""How plotext draws a marker, where that is not the marker's name."""
ANSI = {"cyan": 6, "orange": 3, "green": 2, "magenta": 5, "blue": 4, "red": 1, "orange+": 11}
"""The ANSI colour plotext uses for each of COLORS (white: the terminal's foreground)."""


def series_key(n: int) -> Text:
    """The marker and colour of line `n` of a chart, for a legend kept outside the chart
    (a table column), so lines are told apart with NO_COLOR and in narrow charts."""
    marker, color = MARKERS[n % len(MARKERS)], COLORS[n % len(COLORS)]
    code = ANSI.get(color)
    return Text(GLYPHS.get(marker, marker), style=f"bold color({code})" if code else "bold")


class Chart(PlotextPlot):
    """Base chart: subclasses implement `plot()`; `message` shows when there is no data."""

    MIN_WIDTH = 24
    MIN_HEIGHT = 6

    def __init__(self, title: str = "", *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self.chart_title = title
        self.message = "no data yet"
        self.render_s = 0.0
        """Seconds the last figure took to build (grows with the chart's size)."""

    def has_data(self) -> bool:
        return False

    def plot(self) -> None:
        """Draw the data on self.plt (the figure is already cleared)."""

    def render(self) -> RenderResult:
        width, height = self.size.width, self.size.height
        if not self.has_data():
            return Text(
                f"{self.chart_title}: {self.message}" if self.chart_title else self.message,
                style="dim",
            )
        if width < self.MIN_WIDTH or height < self.MIN_HEIGHT:
            return Text(f"{self.chart_title}: widen the terminal to see this chart", style="dim")
        start = time.perf_counter()
        self.plt.clear_figure()
        self.plot()
        figure = super().render()
        self.render_s = time.perf_counter() - start
        return figure

    @property
    def narrow(self) -> bool:
        return self.size.width < 60

    def _title(self, text: str) -> None:
        if self.size.height >= 10:
            self.plt.title(text)


class LiveChart(Chart):
    """Throughput or latency of the runs of a benchmark in progress, one line per run."""

    def __init__(self, metric: str, *, id: str | None = None) -> None:
        title = "throughput (items/s)" if metric == "throughput" else "latency (ms, median)"
        super().__init__(title, id=id)
        self.metric = metric
        self.lines: list[LiveLine] = []
        self.message = "waiting for the first measurements"

    def set_lines(self, lines: list[LiveLine]) -> None:
        if lines == self.lines:
            return
        self.lines = lines
        self.refresh()

    def has_data(self) -> bool:
        return any(line.xs for line in self.lines)

    def plot(self) -> None:
        plt = self.plt
        for line in self.lines:
            # the run's index picks marker and colour, as in the runs table's key column
            n = line.index
            ys = line.throughput_fps if self.metric == "throughput" else line.latency_ms
            label = None if self.narrow or len(self.lines) > 6 else line.label
            plt.plot(
                list(line.xs),
                list(ys),
                marker=MARKERS[n % len(MARKERS)],
                color=COLORS[n % len(COLORS)],
                label=label,
            )
        plt.title(self.chart_title)
        if not self.narrow:
            plt.xlabel("seconds measured")


class ScalingChart(Chart):
    """Throughput (left axis) and median latency (right axis) along a scaling axis."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("scaling", id=id)
        self.scaling: Scaling | None = None
        self.message = "no successful runs to chart yet"

    def set_scaling(self, scaling: Scaling | None) -> None:
        if scaling == self.scaling:
            return
        self.scaling = scaling
        self.refresh()

    def has_data(self) -> bool:
        return bool(self.scaling and self.scaling.points)

    def plot(self) -> None:
        assert self.scaling is not None
        plt = self.plt
        points = self.scaling.points
        xs = list(range(1, len(points) + 1))
        plt.plot(xs, [p.throughput_fps for p in points], marker="hd", color="cyan", label="items/s")
        if not self.narrow:
            plt.plot(
                xs,
                [p.latency_ms for p in points],
                marker="x",
                color="orange",
                label="median ms",
                yside="right",
            )
            plt.ylabel("items/s", yside="left")
            plt.ylabel("ms", yside="right")
        # both axes start at zero, so a small difference never looks like a big one
        plt.ylim(0, max(p.throughput_fps for p in points) * 1.1 or 1)
        if not self.narrow:
            plt.ylim(0, max(p.latency_ms for p in points) * 1.1 or 1, yside="right")
        plt.xticks(xs, [p.label for p in points])
        plt.xlim(0.5, len(points) + 0.5)
        plt.xlabel(self.scaling.axis)


class BarChart(Chart):
    """Horizontal bars with labels on the left (labels are cut to fit narrow widths)."""

    def __init__(self, title: str, unit: str = "", *, id: str | None = None) -> None:
        super().__init__(title, id=id)
        self.unit = unit
        self.bars: list[tuple[str, float]] = []
        self.message = "nothing to show"

    def set_bars(self, bars: Sequence[tuple[str, float]], title: str | None = None) -> None:
        bars, title = list(bars), self.chart_title if title is None else title
        if bars == self.bars and title == self.chart_title:
            return
        self.bars, self.chart_title = bars, title
        self.refresh()

    def has_data(self) -> bool:
        return bool(self.bars)

    def plot(self) -> None:
        plt = self.plt
        room = max(6, self.size.width // 3)
        labels = [
            label if len(label) <= room else label[: room - 1] + "…" for label, _ in self.bars
        ]
        # plotext draws the first bar at the bottom; reverse so the list reads top-down
        plt.bar(
            labels[::-1],
            [value for _, value in self.bars][::-1],
            orientation="h",
            width=0.6,
            marker="sd",
            color="cyan",
        )
        plt.title(self.chart_title)
        if self.unit and not self.narrow:
            plt.xlabel(self.unit)
