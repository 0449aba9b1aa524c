"""The Kernel-Level Performance tab: every layer of both versions, joined, with the detail
of the highlighted one beside (or below) the table."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Input, Label, Static

from perftui.domain.compare import Comparison, LayerPair, Side, layer_detail
from perftui.domain.measurement.uncertainty import Interval, unknown_interval
from perftui.domain.model.layer_spread import (
    delta_beyond_noise,
    evidence_key,
    layer_times,
    profiles,
)
from perftui.tui.compare.charts import STYLES, side_text
from perftui.tui.compare.panes import profile_notice
from perftui.tui.compare.state import SummaryState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.fit import cut
from perftui.tui.kit.format import escape
from perftui.tui.kit.tables import Cell, RowTable, fill_table, right
from perftui.tui.kit.tabs import Pane

SIDE_BY_SIDE = 150
"""From this width the detail stands beside the table, not below it."""
LAYER_SORT_NAMES = {
    "delta": "|Δ| ms",
    "time_a": "A ms",
    "time_b": "B ms",
    "ratio": "B/A",
    "name": "Layer",
    "type": "Type",
}
RAN_IN = {"both": "both", "a": "A only", "b": "B only", "neither": "neither"}
WIDE_HEAD = 120
"""From this width the head also names the sort and filter keys (the footer always does)."""
WITHIN_NOISE = "~"
"""After a Δ the two layers' intervals cannot tell apart."""


class LayerTimes:
    """Each side's layer times over the compared configuration's profiled repetitions, with
    their intervals (domain.model.layer_spread)."""

    def __init__(self, c: Comparison) -> None:
        groups = dict(zip(Side, c.groups, strict=True))
        self.times = {side: layer_times(g.runs) if g else {} for side, g in groups.items()}
        self.profiles = min(profiles(g.runs) if g else 0 for g in groups.values())

    def of(self, pair: LayerPair, side: Side) -> Interval | None:
        layer = pair.layer(side)
        if layer is None:
            return None
        if layer.status != "executed":  # fused or not run: no time, for certain
            return Interval(layer.time_ms, layer.time_ms, layer.time_ms, 1)
        return self.times[side].get(layer.name) or unknown_interval(layer.time_ms)

    def text(self, pair: LayerPair, side: Side) -> str:
        """The side's time with its interval; a fused or skipped layer's 0 as it is."""
        layer, found = pair.layer(side), self.of(pair, side)
        if layer is None or found is None:
            return fmt.DASH
        return fmt.ms_ci(found.value, found) if layer.status == "executed" else fmt.ms(found.value)

    def ranked(self, pairs: list[LayerPair], reverse: bool) -> list[LayerPair]:
        """The largest changes first, noise never among them (`evidence_key`)."""
        ranked = sorted(pairs, key=lambda p: evidence_key(self.of(p, Side.A), self.of(p, Side.B)))
        return ranked[::-1] if reverse else ranked


def detail_renderable(pair: LayerPair, c: Comparison) -> Table:
    """The detail pane: each attribute in A and B, '≠' where they differ, and the notice."""
    detail = layer_detail(pair, c.a_name, c.b_name)
    table = Table(box=None, padding=(0, 1), show_edge=False, expand=True)
    table.add_column("", style="bold", no_wrap=True)
    for side in Side:
        header = Text(f"{side} {c.name(side)}", style=f"bold {STYLES[side]}")
        table.add_column(header, overflow="fold", ratio=1)
    table.add_column("", no_wrap=True, width=1)
    table.title = Text.assemble(
        (pair.name, "bold"),
        f"  matched by {detail.matched_by}" if detail.matched_by else "",
        f"  executed in {RAN_IN[detail.executed_in]}",
        ("\n" + detail.notice, "bold") if detail.notice else "",
    )
    table.title_justify = "left"
    for row in detail.rows:
        table.add_row(row.label, row.a or fmt.DASH, row.b or fmt.DASH, "≠" if row.differs else "")
    delta = f"{pair.delta_ms:+.3f}" if pair.delta_ms is not None else ""
    ratio = f" ({pair.ratio:.2f}x)" if pair.ratio is not None else ""
    table.add_row(
        "time ms",
        fmt.ms(pair.time_a),
        fmt.ms(pair.time_b) + (f"  {delta}{ratio}" if delta else ""),
        "",
    )
    return table


class KernelPane(Pane[SummaryState]):
    """The joined layers; the screen's state says how they are sorted and filtered."""

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[LayerPair] = []
        """The rows shown, in order."""

    def compose(self) -> ComposeResult:
        yield Static("", id="kernel-missing", classes="profile-notice")
        with Horizontal(id="kernel-filter", classes="form-row"):
            yield Label("min |Δ| ms", classes="cmp-label")
            yield Input("0", id="cmp-delta", compact=True, placeholder="0", select_on_focus=True)
            yield Static("", id="kernel-head", classes="field-note")
        with Horizontal(id="kernel-body"):
            yield RowTable(id="cmp-layers")
            with VerticalScroll(id="kernel-detail-box"):
                yield Static("", id="kernel-detail")

    def populate(self) -> None:
        s = self.state
        head = self.query_one("#kernel-head", Static)
        table = self.query_one("#cmp-layers", DataTable)
        detail_box = self.query_one("#kernel-detail-box")
        missing = profile_notice(s.comparison)
        note = self.query_one("#kernel-missing", Static)
        note.display = missing is not None
        self.query_one("#kernel-filter").display = missing is None
        table.display = detail_box.display = missing is None
        if missing is not None:
            note.update(missing)
            return
        total = len(s.comparison.layers)
        times = LayerTimes(s.comparison)
        pairs = s.shown_pairs()
        if s.layer_sort == "delta":
            pairs = times.ranked(pairs, s.layer_reversed)
        self.pairs = pairs
        noise = (
            f" · ms: mean of {times.profiles} profiles ±95 %, {WITHIN_NOISE} within noise"
            if times.profiles > 1
            else " · ±?: one profile each"
        )
        arrow = "↑" if (s.layer_sort in ("name", "type")) != s.layer_reversed else "↓"
        head.set_class(bool(s.delta_error), "error")
        if s.delta_error:
            head.update(escape(s.delta_error))
        else:
            hidden = total - len(pairs)
            head.update(
                f"{len(pairs)} of {total} layers"
                + (f" ({hidden} changed less)" if hidden else "")
                + f" · by {LAYER_SORT_NAMES[s.layer_sort]} {arrow}"
                + noise
                + (" · s, S sort · f filters" if self.app.size.width >= WIDE_HEAD else "")
            )
        width = self.app.size.width
        beside = width >= SIDE_BY_SIDE
        self.query_one("#kernel-body").set_class(beside, "side")
        room = width - (56 if beside else 0) - 4
        wide = room >= 102
        name_width = 30 if wide else max(16, min(40, room - 48))
        cursor = table.cursor_row
        columns = [("Layer", "name")]
        if wide:
            columns.append(("Type", "type"))
        columns += [
            ("A ms", "time_a"),
            ("A prec", "a_prec"),
            ("B ms", "time_b"),
            ("B prec", "b_prec"),
            ("Δ ms", "delta"),
        ]
        if wide:
            columns.append(("B/A", "ratio"))
        rows: list[tuple[str | None, list[Cell]]] = []
        for n, pair in enumerate(pairs):
            a, b = times.of(pair, Side.A), times.of(pair, Side.B)
            if a is not None and b is not None:
                within = delta_beyond_noise(a, b) == 0
                delta = right(f"{b.value - a.value:+.3f}" + (f" {WITHIN_NOISE}" if within else ""))
            else:
                only = Side.A if pair.presence == "a_only" else Side.B
                delta = side_text(only, f"only {only}", bold=True)
                delta.justify = "right"
            cells: list[Cell] = [cut(pair.name, name_width)]
            if wide:
                cells.append(cut(pair.type, 18))
            cells += [
                right(times.text(pair, Side.A)),
                (pair.a.precision or "?") if pair.a else fmt.DASH,
                right(times.text(pair, Side.B)),
                (pair.b.precision or "?") if pair.b else fmt.DASH,
                delta,
            ]
            if wide:
                cells.append(right(f"{pair.ratio:.2f}x" if pair.ratio is not None else fmt.DASH))
            rows.append((str(n), cells))
        fill_table(table, columns, rows)
        if pairs:
            table.move_cursor(row=min(max(cursor, 0), len(pairs) - 1), animate=False)
        self.show_detail(table.cursor_row if pairs else -1)

    def show_detail(self, row: int) -> None:
        target = self.query_one("#kernel-detail", Static)
        if not 0 <= row < len(self.pairs):
            target.update("No layer changed by at least the filter; lower it (f).")
            return
        target.update(detail_renderable(self.pairs[row], self.state.comparison))

    @on(DataTable.RowHighlighted, "#cmp-layers")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail(event.cursor_row)
