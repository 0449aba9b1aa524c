"""The project detail's charts: throughput and latency along a scaling axis, and bars."""

from __future__ import annotations

from collections.abc import Sequence

from perftui.domain.charts.series import Scaling
from perftui.domain.charts.ticks import row_axis
from perftui.domain.measurement.uncertainty import Interval
from perftui.tui.kit.axes import fit_x, fit_y
from perftui.tui.kit.charts import INTERVAL_LEGEND, Chart, draw_interval

Intervals = Sequence[Interval | None]
"""The 95 % interval of each point or bar, in their order (None: none known)."""


class ScalingChart(Chart):
    """Throughput (left axis, with each point's 95 % interval) and median latency (right
    axis) along a scaling axis."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("scaling", id=id)
        self.scaling: Scaling | None = None
        self.intervals: list[Interval | None] = []
        self.message = "no successful runs to chart yet"

    def set_scaling(self, scaling: Scaling | None, intervals: Intervals = ()) -> None:
        if scaling == self.scaling and list(intervals) == self.intervals:
            return
        self.scaling, self.intervals = scaling, list(intervals)
        self.refresh()

    def has_data(self) -> bool:
        return bool(self.scaling and self.scaling.points)

    def plot(self) -> None:
        assert self.scaling is not None
        plt = self.plt
        points = self.scaling.points
        xs: list[float] = list(range(1, len(points) + 1))
        plt.plot(xs, [p.throughput_fps for p in points], marker="hd", color="cyan", label="items/s")
        known = [(x, i) for x, i in zip(xs, self.intervals, strict=False) if i is not None]
        for x, interval in known:
            draw_interval(plt, x, interval, upright=True)
        if not self.narrow:
            plt.plot(
                xs,
                [p.latency_ms for p in points],
                marker="x",
                color="orange",
                label="median ms",
                yside="right",
            )
            # textual-plotext's stubs name ylabel's side `xside`; plotext's is `yside`
            plt.ylabel("items/s", yside="left")  # type: ignore[call-arg]
            plt.ylabel("ms", yside="right")  # type: ignore[call-arg]
        # both axes start at zero, so a small difference never looks like a big one, and
        # step evenly in round numbers on rows of their own
        top = max([p.throughput_fps for p in points] + [i.hi for _, i in known])
        rows = self.size.height - 4
        fit_y(plt, top, rows)
        if not self.narrow:
            right = row_axis(max(p.latency_ms for p in points) * 1.05, rows)
            # the stubs type a side as a float; plotext takes "left" / "right"
            plt.ylim(0, right.top, yside="right")  # type: ignore[arg-type]
            plt.yticks(list(right.ticks), right.labels, yside="right")  # type: ignore[arg-type]
        plt.xticks(xs, [p.label for p in points])
        plt.xlim(0.5, len(points) + 0.5)
        plt.xlabel(self.scaling.axis + (f"   {INTERVAL_LEGEND}" if known else ""))


class BarChart(Chart):
    """Horizontal bars with labels on the left (labels are cut to fit narrow widths)."""

    def __init__(self, title: str, unit: str = "", *, id: str | None = None) -> None:
        super().__init__(title, id=id)
        self.unit = unit
        self.bars: list[tuple[str, float]] = []
        self.intervals: list[Interval | None] = []
        self.message = "nothing to show"

    def set_bars(
        self,
        bars: Sequence[tuple[str, float]],
        title: str | None = None,
        intervals: Intervals = (),
    ) -> None:
        bars, title = list(bars), self.chart_title if title is None else title
        if bars == self.bars and title == self.chart_title and list(intervals) == self.intervals:
            return
        self.bars, self.chart_title, self.intervals = bars, title, list(intervals)
        self.refresh()

    def has_data(self) -> bool:
        return bool(self.bars)

    def plot(self) -> None:
        plt = self.plt
        # one row a bar, its label on it: the plot's rows (the widget's less the frame, the x
        # ticks, and the title and the x label where drawn) hold the first bars; the title
        # says when some are left
        legend = f"   {INTERVAL_LEGEND}" if any(self.intervals) else ""
        xlabel = "" if self.narrow else (self.unit + legend).strip()
        rows = self.size.height - 3 - bool(xlabel) - bool(self.chart_title)
        rows = max(1, rows - (len(self.bars) > rows and not self.chart_title))
        bars, title = self.bars[:rows], self.chart_title
        if len(bars) < len(self.bars):
            title = f"{title} (first {len(bars)} of {len(self.bars)}: make the terminal taller)"
        room = max(6, self.size.width // 3)
        labels = [label if len(label) <= room else label[: room - 1] + "…" for label, _ in bars]
        # plotext draws the first bar at the bottom; reverse so the list reads top-down
        plt.bar(
            labels[::-1],
            [value for _, value in bars][::-1],
            orientation="horizontal",
            width=0.6,
            marker="sd",
            color="cyan",
        )
        # the 95 % intervals over the bars; bar i (from the top) stands at y = len - i
        known = [(len(bars) - i, x) for i, x in enumerate(self.intervals[:rows]) if x is not None]
        for y, interval in known:
            draw_interval(plt, y + 0.35, interval)
        top = max([value for _, value in bars] + [i.hi for _, i in known])
        fit_x(plt, top, self.size.width - max(len(label) for label in labels) - 4)
        plt.ylim(len(bars) - (rows - 1), len(bars))  # the rows' centres: the bars at the top
        plt.title(title)
        plt.xlabel(xlabel)
