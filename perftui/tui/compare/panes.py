"""The first two tabs of the Model Performance Summary: layer types with the distribution
bars, and the inference time of A and B."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from perftui.domain.charts.series import short_label
from perftui.domain.compare import Comparison, Side, distribution, inference_time, sort_layer_types
from perftui.domain.compare.capacity import ratio_lines
from perftui.domain.compare.pairing import APART
from perftui.domain.labels import config_labels
from perftui.domain.model.profile import LayerTypeRow, precision_mix
from perftui.tui.compare.charts import DistributionBars, InferenceChart, side_text
from perftui.tui.compare.state import SummaryState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.fit import cut, distinct
from perftui.tui.kit.format import escape
from perftui.tui.kit.tables import (
    CHECKED,
    UNCHECKED,
    Cell,
    RowTable,
    fill_table,
    right,
)
from perftui.tui.kit.tabs import Pane

WIDE = 100
"""From this width the type names get more room."""
TYPE_SORT_NAMES = {
    "type": "Type",
    "a_time": "A ms",
    "b_time": "B ms",
    "a_share": "A %",
    "b_share": "B %",
    "delta": "|Δ| ms",
}


def profile_notice(c: Comparison) -> str | None:
    """Why the layer tabs cannot compare, and how to fix it; None when both have profiles."""
    if c.profiled:
        return None
    problems = []
    for side in Side:
        run, name = c.run(side), escape(c.name(side))
        if run is None:
            problems.append(
                f"{side} ({name}) has no successful checked run: check one on the setup screen "
                "(esc)."
            )
        elif not run.layers:
            problems.append(
                f"{side} ({name}): the compared run {escape(short_label(run.config))}"
                " has no per-layer profile."
            )
    return (
        "[b]No per-layer comparison yet[/] (the figures and verdicts: Inference, [b]2[/]). "
        + " ".join(problems)
        + "\nTo get one, benchmark the project with [b]per-layer profile[/] on (open it on "
        "Projects, [b]b[/], the Profile box; or `perftui bench MODEL --profile`), or go "
        "back ([b]esc[/]) and pin a run that has a profile ('yes' in Prof) with [b]p[/]."
    )


def _mix(row: LayerTypeRow | None) -> str:
    return (precision_mix(row.precisions) if row else "") or fmt.DASH


class TypesPane(Pane[SummaryState]):
    def compose(self) -> ComposeResult:
        yield Static("", id="types-head", classes="pane-head")
        yield Static("", id="types-missing", classes="profile-notice")
        yield RowTable(id="cmp-types")
        yield DistributionBars(id="cmp-distribution")

    def populate(self) -> None:
        s = self.state
        head = self.query_one("#types-head", Static)
        table = self.query_one("#cmp-types", DataTable)
        bars = self.query_one("#cmp-distribution", DistributionBars)
        missing = profile_notice(s.comparison)
        note = self.query_one("#types-missing", Static)
        note.display = missing is not None
        table.display = bars.display = head.display = missing is None
        if missing is not None:
            note.update(missing)
            return
        rows = sort_layer_types(s.comparison.layer_types, s.type_sort, s.type_descending)
        arrow = "↓" if s.types_descending else "↑"
        head.update(
            f"{len(rows)} types · by {TYPE_SORT_NAMES[s.type_sort]} {arrow} (s, S) · space: "
            "in/out of the chart, a: all"
        )
        wide = self.app.size.width >= WIDE
        cursor = table.cursor_row
        sort_label = TYPE_SORT_NAMES[s.type_sort]
        columns = []
        for label, key in (
            ("In", "in"),
            ("Type", "type"),
            ("A ms", "a_time"),
            ("A %", "a_share"),
            ("A prec", "a_prec"),
            ("B ms", "b_time"),
            ("B %", "b_share"),
            ("B prec", "b_prec"),
            ("Δ ms", "delta"),
        ):
            sorted_here = label == sort_label or (key == "delta" and s.type_sort == "delta")
            columns.append((f"{label}{arrow}" if sorted_here else label, key))
        cells: list[tuple[str | None, list[Cell]]] = [
            (
                row.type,
                [
                    CHECKED if row.type in s.included else UNCHECKED,
                    cut(row.type, 30 if wide else 12),
                    right(fmt.ms(row.a.time_ms) if row.a else fmt.DASH),
                    right(fmt.pct(row.a.share) if row.a else fmt.DASH),
                    _mix(row.a),
                    right(fmt.ms(row.b.time_ms) if row.b else fmt.DASH),
                    right(fmt.pct(row.b.share) if row.b else fmt.DASH),
                    _mix(row.b),
                    right(f"{row.delta_ms:+.3f}"),
                ],
            )
            for row in rows
        ]
        fill_table(table, columns, cells)
        if rows:
            table.move_cursor(row=min(max(cursor, 0), len(rows) - 1), animate=False)
        included = [r for r in rows if r.type in s.included]
        bars.set_rows(
            distribution(included),
            "no layer type included: space on a row includes it, a includes all",
        )


class InferencePane(Pane[SummaryState]):
    def compose(self) -> ComposeResult:
        yield Static("", id="inference-head", classes="pane-head")
        yield InferenceChart(id="cmp-inference-chart")
        yield Static("", id="inference-figures")

    def populate(self) -> None:
        s = self.state
        c = s.comparison
        data = inference_time(c, s.metric)
        better = "higher" if s.metric == "throughput" else "lower"
        other = "latency" if s.metric == "throughput" else "throughput"
        self.query_one("#inference-head", Static).update(
            f"[b]{s.metric.capitalize()}[/] in {data.unit}, {better} is better · m shows {other}"
        )
        self.query_one("#cmp-inference-chart", InferenceChart).set_data(data)
        lines: list[Text | str] = []
        names = distinct([c.name(side) for side in Side], 10)
        groups = [g for g in c.groups if g is not None and g.ok_runs]
        labels = dict(
            zip(map(id, groups), config_labels([g.config for g in groups]).labels, strict=True)
        )
        for side, group, name in zip(Side, c.groups, names, strict=True):
            head = side_text(side, f"{side} {name}".ljust(13), bold=True)
            if group is None or not group.ok_runs:
                lines.append(Text.assemble(head, "no successful checked run"))
                continue
            f = group.figures
            repeats = f" x{len(group.runs)}" if len(group.runs) > 1 else ""
            lines.append(
                Text.assemble(
                    head,
                    f"{fmt.fps_ci(f.throughput_fps, f.throughput):>9} items/s  "
                    f"{fmt.verdict_word(f.verdict.status)}  {labels[id(group)]}{repeats}\n{'':13}"
                    + "  ".join(
                        f"{name} {fmt.ms_ci(group.latency_ms(name), f.latency.get(name))}"
                        for name in ("median", "p90", "p99")
                    )
                    + " ms",
                )
            )
        tput = inference_time(c, "throughput").ratio
        lat = inference_time(c, "latency").ratio
        judged = any(
            found is not None and found.ratio is not None for found in (c.throughput, c.latency)
        )
        if tput is not None and lat is not None and not judged:  # else the verdicts say B/A
            lines.append(f"B/A: throughput {tput:.2f}x, {c.stat} latency {lat:.2f}x (no interval)")
        verdicts = [found.text for found in (c.throughput, c.latency) if found]
        if c.alternated is not None:  # the verdict to trust first, each said what it is of
            lines.append(c.alternated.text)
            verdicts = [f"{APART}: " + "; ".join(verdicts)] if verdicts else []
        lines += [fmt.said(text) for text in verdicts]
        if (capacity := s.capacity()) is not None:  # before the notes: room at 80x24
            lines += ratio_lines(capacity, (c.name(Side.A), c.name(Side.B)))
        lines += [f"note: {fmt.said(c.settings_note)}"] if c.settings_note else []
        lines += [c.memory.text] if c.memory is not None else []
        lines += [
            f"note: {fmt.said(note)}" for note in c.measurement_notes if note != c.settings_note
        ]
        self.query_one("#inference-figures", Static).update(
            Text("\n").join(Text(line) if isinstance(line, str) else line for line in lines)
        )
