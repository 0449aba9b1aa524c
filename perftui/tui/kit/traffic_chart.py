"""The traffic curve: p99 and p50 latency from arrival against the offered rate, a curve per
configuration (perftui.domain.charts.traffic), each point with its 95 % interval, the points
whose latencies are not the engine's marked (S: saturated, L: the scheduler was late). The
live benchmark screen and the project detail draw it alike."""

from __future__ import annotations

from collections.abc import Sequence

from perftui.domain.charts.traffic import TrafficCurve, TrafficPoint
from perftui.domain.measurement.uncertainty import Interval
from perftui.tui.kit.axes import fit_x, fit_y
from perftui.tui.kit.charts import INTERVAL_LEGEND, Chart, draw_interval, glyph

P99_MARKERS = ("hd", "x", "*", "#")
P50_MARKERS = ("dot", "+", "o", "@")
COLORS = ("cyan", "orange", "green", "magenta")
SATURATED, LATE = "S", "L"
"""The marks over a point: the engine did not keep up; the scheduler did not keep its
schedule (the latencies hold its delay)."""
LINE_COLOR = "red"


def point_mark(point: TrafficPoint) -> str:
    """S where the engine did not keep up, L where only the schedule was not kept, else ''."""
    if point.saturated:
        return SATURATED
    return LATE if point.reasons else ""


class TrafficChart(Chart):
    """Latency from arrival against offered rate. `objective_ms` draws the objective's bound
    across the chart and `capacity` the capacity's rate up it, where given."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("latency from arrival (ms) vs offered rate", id=id)
        self.curves: list[TrafficCurve] = []
        self.objective_ms: float | None = None
        self.capacity: float | None = None
        self.message = "no run at a rate has finished yet"

    def set_curves(
        self,
        curves: Sequence[TrafficCurve],
        objective_ms: float | None = None,
        capacity: float | None = None,
    ) -> None:
        found = (list(curves), objective_ms, capacity)
        if found == (self.curves, self.objective_ms, self.capacity):
            return
        self.curves, self.objective_ms, self.capacity = found
        self.refresh()

    def has_data(self) -> bool:
        return any(curve.points for curve in self.curves)

    def plot(self) -> None:
        plt = self.plt
        labelled = not self.narrow and len(self.curves) <= 2
        for n, curve in enumerate(self.curves):
            color = COLORS[n % len(COLORS)]
            for name, markers in (("p50", P50_MARKERS), ("p99", P99_MARKERS)):
                known = [(p.offered, i) for p in curve.points if (i := _interval(p, name))]
                label = f"{name} {curve.label}".strip() if labelled else None
                plt.plot(
                    [x for x, _ in known],
                    [i.value for _, i in known],
                    marker=markers[n % len(markers)],
                    color=color,
                    label=label,
                )
                for x, interval in known:
                    draw_interval(plt, x, interval, upright=True)
            for point in curve.points:
                if (mark := point_mark(point)) and point.p99 is not None:
                    plt.text(mark, point.offered, point.p99.hi, color=LINE_COLOR)
        points = [p for curve in self.curves for p in curve.points]
        top = max((i.hi for p in points if (i := p.p99 or p.p50)), default=0.0)
        right = max(p.offered for p in points)
        if self.objective_ms is not None:
            plt.hline(self.objective_ms, color=LINE_COLOR)
            top = max(top, self.objective_ms)
        if self.capacity is not None:
            plt.vline(self.capacity, color=LINE_COLOR)
            right = max(right, self.capacity)
        fit_y(plt, top, self.size.height - 4 - (not self.narrow))
        fit_x(plt, right, self.size.width - 10)
        marks = sorted({point_mark(p) for p in points} - {""}, reverse=True)
        said = [{SATURATED: "S saturated", LATE: "L late"}[m] for m in marks]
        if self.narrow:  # no legend, no x label: the title says the markers, unit and marks
            stats = f"{glyph(P99_MARKERS[0])}p99 {glyph(P50_MARKERS[0])}p50"
            plt.title("  ".join([f"{stats} {NARROW_TITLE}", *said]))
        else:
            plt.title(self.chart_title)
            plt.xlabel("   ".join(["offered requests/s", INTERVAL_LEGEND, *said]))


NARROW_TITLE = "ms vs req/s"
"""A narrow chart's title, after its markers ('▞p99 •p50'); its first curve's, where it
draws several (a wide chart's legend tells them apart)."""


def _interval(point: TrafficPoint, name: str) -> Interval | None:
    return point.p99 if name == "p99" else point.p50
