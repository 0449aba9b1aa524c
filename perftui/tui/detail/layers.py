"""The profile tabs of the project detail: layer types, layers and FLOPs per node."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable, Static

from perftui.domain.model.profile import (
    flops_profile,
    layer_rows,
    layer_type_summary,
    precision_counts,
    precision_mix,
    total_time_ms,
)
from perftui.tui.detail.charts import BarChart
from perftui.tui.detail.panes import TOP_BARS
from perftui.tui.detail.state import DetailState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.fit import cut
from perftui.tui.kit.format import escape
from perftui.tui.kit.tables import RowTable, fill_table
from perftui.tui.kit.tabs import Pane


class TypesPane(Pane[DetailState]):
    def compose(self) -> ComposeResult:
        yield Static("", id="types-head", classes="pane-head")
        with Horizontal(id="types-body"):
            yield RowTable(id="types")
            yield BarChart("time share by layer type (%)", id="types-chart")

    def on_mount(self) -> None:
        table = self.query_one("#types", DataTable)
        for label, key in (
            ("Type", "type"),
            ("ms", "ms"),
            ("share", "share"),
            ("", "bar"),
            ("n", "n"),
            ("precisions", "prec"),
        ):
            table.add_column(label, key=key)

    def populate(self) -> None:
        d = self.state
        table = self.query_one("#types", DataTable)
        chart = self.query_one("#types-chart", BarChart)
        table.clear()
        run, note = d.profiled_run()
        head = self.query_one("#types-head", Static)
        if run is None or not run.layers:
            head.update(note)
            chart.set_bars([])
            return
        rows = layer_type_summary(run.layers)
        counts = precision_mix(precision_counts(run.layers))
        head.update(f"{note}  total {fmt.ms(total_time_ms(run.layers))} ms/request · {counts}")
        for row in rows:
            table.add_row(
                cut(row.type, 22),
                fmt.ms(row.time_ms),
                fmt.pct(row.share),
                fmt.bar(row.share, 8),
                str(row.layers),
                precision_mix(row.precisions),
            )
        chart.set_bars([(row.type, row.share * 100) for row in rows[:TOP_BARS]])


class FittedPane(Pane[DetailState]):
    """A pane whose table fits its width: drawn again when the width changes."""

    fitted_width = 0

    def on_resize(self) -> None:
        if self.size.width != self.fitted_width:
            self.redraw()

    def fit(
        self,
        table: DataTable,
        columns: tuple[tuple[str, str], ...],
        rows: Sequence[tuple[str | None, list[str]]],
        maximum: int,
    ) -> None:
        """Fill `table`; its first column (layer or node names) takes the room left."""
        self.fitted_width = self.size.width
        width = table.size.width or self.size.width or self.app.size.width
        height = table.size.height or self.size.height or self.app.size.height
        fill_table(table, columns, rows, width=width, height=height, maximum=maximum)


LAYER_COLUMNS = (
    ("Layer", "name"),
    ("Type", "type"),
    ("Prec", "prec"),
    ("ms", "ms"),
    ("share", "share"),
    ("FLOPs", "flops"),
    ("Status", "status"),
)


class LayersPane(FittedPane):
    def compose(self) -> ComposeResult:
        yield Static("", id="layers-head", classes="pane-head")
        yield RowTable(id="layers")

    def populate(self) -> None:
        d = self.state
        table = self.query_one("#layers", DataTable)
        run, note = d.profiled_run()
        head = self.query_one("#layers-head", Static)
        if run is None or not run.layers:
            head.update(note)
            self.fit(table, LAYER_COLUMNS, [], 40)
            return
        descending = d.layers_descending
        rows = layer_rows(
            run.layers, d.info.node_flops if d.info else None, d.layer_sort, descending
        )
        arrow = "↓" if descending else "↑"
        head.update(f"{note}  {len(rows)} layers · sorted by {d.layer_sort} {arrow} (s, S)")
        cells = [
            (
                None,
                [
                    row.name,
                    cut(row.type, 16),
                    row.precision or fmt.DASH,
                    fmt.ms(row.time_ms),
                    fmt.pct(row.share),
                    fmt.count(row.flops) if row.flops is not None else fmt.DASH,
                    "" if row.status == "executed" else row.status,
                ],
            )
            for row in rows
        ]
        self.fit(table, LAYER_COLUMNS, cells, 40)


FLOPS_COLUMNS = (
    ("Node", "name"),
    ("Op", "op"),
    ("FLOPs", "flops"),
    ("FLOPs %", "fshare"),
    ("layer ms", "ms"),
    ("time %", "tshare"),
)


class FlopsPane(FittedPane):
    def compose(self) -> ComposeResult:
        yield Static("", id="flops-head", classes="pane-head")
        yield RowTable(id="flops")

    def populate(self) -> None:
        d = self.state
        table = self.query_one("#flops", DataTable)
        head = self.query_one("#flops-head", Static)
        if d.info is None:
            head.update(escape(d.info_error) if d.info_error else "Inspecting the model…")
            self.fit(table, FLOPS_COLUMNS, [], 30)
            return
        run, note = d.profiled_run()
        rows = flops_profile(d.info.node_flops, run.layers if run else None)
        measured = note if run is not None else "no profile to set beside them"
        head.update(
            f"theoretical FLOPs at {escape(d.info.flops_at())}: {fmt.count(d.info.flops)} in "
            f"{len(rows)} nodes · {measured}"
        )
        cells = [
            (
                None,
                [
                    row.name,
                    cut(row.op_type, 14),
                    fmt.count(row.flops),
                    fmt.pct(row.flops_share),
                    fmt.ms(row.time_ms) + (f" (+{row.shared_with})" if row.shared_with else ""),
                    fmt.pct(row.time_share),
                ],
            )
            for row in rows
        ]
        self.fit(table, FLOPS_COLUMNS, cells, 30)
