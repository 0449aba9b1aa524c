"""The compare screens' charts: latency vs throughput of two projects, A vs B bars, and the
layer-type distribution bars.

Project A and B keep one colour and one marker each everywhere (points, bars, table marks),
and every mark also carries a letter, so the charts read the same with NO_COLOR.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import RenderResult
from textual.geometry import Size
from textual.widget import Widget

from perftui.domain.compare import SWEET_MARK, CompareChart, InferenceTime, Side
from perftui.tui.kit import format as fmt
from perftui.tui.kit.axes import fit_x, scatter_axes
from perftui.tui.kit.charts import INTERVAL_LEGEND, Chart, draw_interval
from perftui.tui.kit.fit import distinct

# plotext colour names and the Rich styles that render as the same ANSI colours
PLOT_COLORS = {Side.A: "cyan", Side.B: "orange"}
STYLES = {Side.A: "cyan", Side.B: "yellow"}
SWEET_PLOT_COLOR = "blue+"
SWEET_STYLE = "bold bright_blue"
MARKERS = {Side.A: "●", Side.B: "◆"}
BAR_MARKERS = {Side.A: "█", Side.B: "▓"}
SWEET = "★"
THRESHOLD_COLOR = "gray"


def mark_text(text: str) -> str:
    """A domain mark ('A', 'B*', '*') as drawn: the sweet spot is a star."""
    return text.replace(SWEET_MARK, SWEET)


def point_mark(text: str) -> str:
    """A domain mark as drawn on the chart, one cell over its point so that no mark runs
    into a neighbour: the letter of a compared run, the star for the sweet spot."""
    return SWEET if SWEET_MARK in text else text


def side_text(side: Side, text: str, bold: bool = False) -> Text:
    return Text(text, style=f"{'bold ' if bold else ''}{STYLES[side]}")


def threshold_text(value: float) -> str:
    """A latency threshold as typed: 5, 12.5."""
    return f"{value:g}"


def legend(a_name: str, b_name: str, stat: str, width: int = 0) -> Text:
    """The lines under the chart: which marker is which, as in the Workbench's legend; one
    line when `width` has room for it, else two."""
    projects = Text.assemble(
        side_text(Side.A, MARKERS[Side.A]),
        f" A {a_name}   ",
        side_text(Side.B, MARKERS[Side.B]),
        f" B {b_name}",
    )
    symbols = Text.assemble(
        "⠒ one config, by batch   ",
        Text("A B", style="bold"),
        " compared runs   ",
        Text(SWEET, style=SWEET_STYLE),
        " sweet spot   ",
        Text("│", style="dim"),
        f" {stat} threshold",
    )
    joint = "   " if len(projects) + len(symbols) + 3 <= width else "\n"
    return Text.assemble(projects, joint, symbols)


class LatencyThroughputChart(Chart):
    """Latency (x) against throughput (y) of the checked runs of both projects; the axes'
    titles take a row at any height (a long runs list leaves the chart a few rows)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("latency vs throughput", id=id)
        self.data: CompareChart | None = None
        self.message = "check runs of A or B to see them here"

    def set_data(self, data: CompareChart | None) -> None:
        self.data = data
        self.refresh()

    def has_data(self) -> bool:
        return bool(self.data and self.data.points)

    def plot(self) -> None:
        assert self.data is not None
        plt = self.plt
        data = self.data
        points = data.points
        x_axis, _ = scatter_axes(
            plt,
            [p.latency_ms for p in points],
            [p.throughput_fps for p in points],
            (self.size.width, self.size.height),
            True,
        )
        # lines first, then every point over them, then the letters over the points
        for line in data.lines:
            if len(line.points) > 1:
                xs = [p.latency_ms for p in line.points]
                ys = [p.throughput_fps for p in line.points]
                plt.plot(xs, ys, marker="braille", color=PLOT_COLORS[line.side])
        for line in data.lines:
            xs = [p.latency_ms for p in line.points]
            ys = [p.throughput_fps for p in line.points]
            plt.scatter(xs, ys, marker=MARKERS[line.side], color=PLOT_COLORS[line.side])
        threshold = data.threshold_ms
        if threshold is not None and threshold <= x_axis.top:
            plt.vline(threshold, color=THRESHOLD_COLOR)
        for mark in data.marks:
            plt.text(
                point_mark(mark.text),
                mark.latency_ms,
                mark.throughput_fps,
                color=SWEET_PLOT_COLOR if mark.sweet else PLOT_COLORS[mark.side],
                background="default",
                style="bold",
            )
        plt.xlabel(f"x: {data.stat} latency (ms)   y: throughput (items/s)")


class InferenceChart(Chart):
    """One horizontal bar for A and one for B: throughput or latency."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("inference time", id=id)
        self.data: InferenceTime | None = None
        self.message = "no successful run to compare"

    def set_data(self, data: InferenceTime | None) -> None:
        self.data = data
        self.refresh()

    def has_data(self) -> bool:
        return bool(self.data and any(bar.value is not None for bar in self.data.bars))

    def plot(self) -> None:
        assert self.data is not None
        plt = self.plt
        bars = self.data.bars
        top = max(max(bar.value or 0.0, bar.interval.hi if bar.interval else 0.0) for bar in bars)
        # A on top: plotext counts y upwards
        for y, bar in zip((2, 1), bars, strict=True):
            if bar.value is not None:
                plt.bar(
                    [y],
                    [bar.value],
                    orientation="horizontal",
                    width=0.5,
                    color=PLOT_COLORS[bar.side],
                    marker=BAR_MARKERS[bar.side],
                )
        for y, bar in zip((2, 1), bars, strict=True):  # the 95 % interval, over the bars
            if bar.value is not None and bar.interval is not None:
                draw_interval(plt, y + 0.45, bar.interval)
        room = max(6, self.size.width // 4)
        names = distinct([bar.project for bar in bars], room - 2)
        labels = [f"{bar.side} {name}" for bar, name in zip(bars, names, strict=True)]
        fit_x(plt, top, self.size.width - max(len(label) for label in labels) - 4)
        plt.yticks([2, 1], labels)
        # A (y 2) and B (y 1) each on a row of its own: on 3 rows a margin of 0.6 put both
        # labels nearest the middle row, and which one was drawn there was a matter of luck
        rows = self.size.height - 3 - (self.size.height >= 9)
        margin = max(0, (rows - 1) // 4)
        gaps = max(1, rows - 1 - 2 * margin)
        plt.ylim(1 - margin / gaps, 2 + margin / gaps)
        if self.size.height >= 9:
            whiskers = any(bar.interval for bar in bars)
            plt.xlabel(self.data.unit + (f"   {INTERVAL_LEGEND}" if whiskers else ""))


class DistributionBars(Widget):
    """Share of the included layer types' time, one line per type: A's bar, then B's."""

    DEFAULT_CSS = "DistributionBars { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[tuple[str, float, float]] = []
        self.message = ""

    def set_rows(self, rows: Sequence[tuple[str, float, float]], message: str = "") -> None:
        self.rows = list(rows)
        self.message = message
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.rows) + 1)

    def render(self) -> RenderResult:
        if not self.rows:
            return Text(self.message or "no layer type included", style="dim")
        width = self.size.width
        name_width = min(22, max(8, max(len(t) for t, _, _ in self.rows)), width // 4)
        bar_width = max(4, (width - name_width - 2 * 10) // 2)
        text = Text("distribution of the included types' time (share of their total)\n")
        text.stylize("bold", 0, len(text) - 1)
        rows = self.rows
        if self.size.height and len(rows) + 1 > self.size.height:  # clipped: say how many
            rows = rows[: max(0, self.size.height - 2)]
        for n, (name, a, b) in enumerate(rows):
            label = name if len(name) <= name_width else name[: name_width - 1] + "…"
            text.append(label.ljust(name_width))
            for side, share in zip(Side, (a, b), strict=True):
                text.append(f" {side} ", style=f"bold {STYLES[side]}")
                text.append(fmt.bar(share, bar_width).ljust(bar_width), style=STYLES[side])
                text.append(f"{share * 100:5.1f}%")
            if n < len(rows) - 1:
                text.append("\n")
        if len(rows) < len(self.rows):
            more = len(self.rows) - len(rows)
            text.append(f"\n… {more} more (space in the table takes a type out)", style="dim")
        return text
