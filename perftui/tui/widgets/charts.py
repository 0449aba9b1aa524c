"""Charts drawn with textual-plotext: each subclass draws on its own `self.plt` in `plot()`.

The figure is rebuilt on every render from the widget's data and current size, so charts
follow resizes; below `MIN_WIDTH` x `MIN_HEIGHT` cells they show one line of text instead.
Series use distinct markers as well as colours, so they stay apart with NO_COLOR.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

from perftui.domain.series import LiveLine, Scaling

MARKERS = ("hd", "dot", "x", "+", "*", "o", "#", "@")
COLORS = ("cyan", "orange", "green", "magenta", "blue", "red", "yellow", "white")


class Chart(PlotextPlot):
    """Base chart: subclasses implement `plot()`; `message` shows when there is no data."""

    MIN_WIDTH = 24
    MIN_HEIGHT = 6

    def __init__(self, title: str = "", *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self.chart_title = title
        self.message = "no data yet"

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
        self.plt.clear_figure()
        self.plot()
        return super().render()

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
        self.lines = lines
        self.refresh()

    def has_data(self) -> bool:
        return any(line.xs for line in self.lines)

    def plot(self) -> None:
        plt = self.plt
        for n, line in enumerate(self.lines):
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
        self.bars = list(bars)
        if title is not None:
            self.chart_title = title
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
