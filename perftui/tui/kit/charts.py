"""Charts drawn with textual-plotext: each subclass draws on its own `self.plt` in `plot()`.

The figure is rebuilt on every render from the widget's data and current size, so charts
follow resizes; below `MIN_WIDTH` x `MIN_HEIGHT` cells they show one line of text instead.
Building a figure is the costly part of a frame, so the setters ask for a render only when
the data really changed.
Series use distinct markers as well as colours, so they stay apart with NO_COLOR.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

from perftui.domain.measurement.uncertainty import Interval

GLYPHS = {"hd": "▞", "dot": "•"}
"""How plotext draws a marker, where that is not the marker's name."""


def glyph(marker: str) -> str:
    """The character a legend kept outside a chart shows for a plotext marker."""
    return GLYPHS.get(marker, marker)


INTERVAL_COLOR = "white"
INTERVAL_LEGEND = "┃─┃ 95 % interval"
"""How the charts draw a figure's 95 % interval: whiskers, a line between two end marks."""


def draw_interval(
    plt: Any, at: float, interval: Interval, *, upright: bool = False, yside: str = "left"
) -> None:
    """The interval of the figure at `at` as whiskers: along x (┃─┃) for horizontal bars,
    along y when `upright` (plotext has no error bars: a two-point line and its two ends)."""
    ends = [interval.lo, interval.hi]
    if upright:
        plt.plot([at, at], ends, marker="│", color=INTERVAL_COLOR, yside=yside)
        plt.scatter([at, at], ends, marker="━", color=INTERVAL_COLOR, yside=yside)
    else:
        plt.plot(ends, [at, at], marker="─", color=INTERVAL_COLOR, yside=yside)
        plt.scatter(ends, [at, at], marker="┃", color=INTERVAL_COLOR, yside=yside)


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

    def set_message(self, message: str) -> None:
        """What the chart says while it has no data (e.g. that nothing was measured)."""
        if message != self.message:
            self.message = message
            self.refresh()

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


T = TypeVar("T")


class DataChart(Chart, Generic[T]):
    """A chart of one data value set from outside, with the message shown when it is None."""

    def __init__(self, title: str = "", *, id: str | None = None) -> None:
        super().__init__(title, id=id)
        self.data: T | None = None

    def set_data(self, data: T | None, message: str) -> None:
        self.data, self.message = data, message
        self.refresh()

    def has_data(self) -> bool:
        return self.data is not None
