"""The project detail's charts: throughput and latency along a scaling axis, and bars."""

from __future__ import annotations

from collections.abc import Sequence

from perftui.domain.series import Scaling
from perftui.tui.kit.charts import Chart


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
