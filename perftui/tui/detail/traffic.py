"""The project detail's Traffic tab: latency from arrival against offered rate for one
configuration (the same settings at several rates), charted with the newest capacity search's
objective and capacity, its rates in a table with every figure's interval, the run's verdict
and why a point's latencies are not the engine's; the capacity in one line above
(perftui.domain.traffic.wording, as the CLI says it)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from perftui.domain.charts.traffic import TrafficPoint, curve_of, drawn_bound
from perftui.domain.settings import rate_label
from perftui.domain.traffic.wording import capacity_line
from perftui.tui.detail.state import DetailState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape
from perftui.tui.kit.tables import Cell, RowTable, fill_table, right
from perftui.tui.kit.tabs import Pane
from perftui.tui.kit.traffic_chart import LATE, SATURATED, TrafficChart, point_mark

COLUMNS = (
    ("Rate", "rate"),
    ("achieved/s", "achieved"),
    ("p50 ms", "p50"),
    ("p99 ms", "p99"),
    ("queue ms", "queue"),
    ("late ms", "late"),
    ("Verdict", "verdict"),
)
"""Rate: the rate asked for and the point's mark (S saturated, L late: the notes under the
table say why; the chart's x is the rate the schedule offered); achieved: requests served
per second; p50, p99: from each request's arrival; queue: the median wait from arrival to
start; late: the scheduler's lateness p99; Verdict: the run's."""
MARKED = {SATURATED: "saturated", LATE: "the scheduler was late"}
NO_RATES = (
    "No runs at a rate yet: benchmark with a rate (b, then Rate /s, e.g. 100,200,400) to see "
    "latency against offered rate."
)


class TrafficPane(Pane[DetailState]):
    def compose(self) -> ComposeResult:
        yield Static("", id="traffic-head", classes="pane-head")
        yield Static("", id="traffic-capacity")
        yield TrafficChart(id="chart-traffic")
        yield RowTable(id="traffic-table")
        yield Static("", id="traffic-notes")

    def populate(self) -> None:
        d = self.state
        head = self.query_one("#traffic-head", Static)
        chart = self.query_one("#chart-traffic", TrafficChart)
        table = self.query_one("#traffic-table", DataTable)
        curves = d.traffic_curves()
        capacity = d.capacity()
        line = self.query_one("#traffic-capacity", Static)
        line.display = capacity is not None
        line.update("" if capacity is None else escape(capacity_line(capacity, d.figures)))
        if not curves:
            head.update(NO_RATES)
            chart.set_curves([])
            self.query_one("#traffic-notes", Static).update("")
            fill_table(table, COLUMNS, [], width=table.size.width or 80, height=4, flex=0)
            return
        shown = d.shown_curve(curves, capacity)
        curve = curves[shown]
        which = f" {shown + 1}/{len(curves)}  [dim]f[/]" * (len(curves) > 1)
        head.update(f"[b]traffic curve[/] of {escape(curve.settings)}{which}")
        if capacity is None:
            chart.set_curves([curve])
        else:  # the capacity's rate marked on its own configuration's curve only
            mine = curve_of(curves, capacity.config) == shown
            bound = drawn_bound(capacity.search.objectives)
            chart.set_curves([curve], bound, capacity.capacity.rate if mine else None)
        rows: list[tuple[str | None, list[Cell]]] = [
            (point.run.id, self._cells(point)) for point in curve.points
        ]
        width = table.size.width or self.app.size.width
        fill_table(table, COLUMNS, rows, width=width, height=table.size.height or 6, flex=0)
        notes = [
            f"[b]{rate_label(p.rate)} {mark}[/] {MARKED[mark]}: {escape('; '.join(p.reasons))}"
            for p in curve.points
            if (mark := point_mark(p))
        ]
        self.query_one("#traffic-notes", Static).update("\n".join(notes))

    def _cells(self, point: TrafficPoint) -> list[Cell]:
        verdict = self.state.figures(point.run).verdict.status
        return [
            f"{rate_label(point.rate)} {point_mark(point)}".strip(),
            right(fmt.fps_ci(point.achieved, point.achieved_ci)),
            right(fmt.ms_ci(point.p50.value if point.p50 else None, point.p50)),
            right(fmt.ms_ci(point.p99.value if point.p99 else None, point.p99)),
            right(fmt.ms(point.queue_ms)),
            right(fmt.ms(point.lateness_ms)),
            fmt.verdict_or_status(point.run.status, verdict),
        ]
