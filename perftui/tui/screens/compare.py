"""Compare two projects, as the Workbench's "Compare performance between two versions of a
model": the setup (projects, runs, latency threshold, sweet spot on a latency/throughput
chart), then the Model Performance Summary (layer types, inference time, kernel level).

Everything shown comes from perftui.domain.compare, the same functions `perftui compare`
uses, so the screen and the CLI agree on the sweet spot for the same runs, threshold and
statistic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import (
    DataTable,
    Footer,
    Header,
    Input,
    Label,
    Select,
    Static,
    TabbedContent,
    TabPane,
)

from perftui.domain.compare import (
    LATENCY_STATS,
    LAYER_SORT_KEYS,
    METRICS,
    TYPE_SORT_KEYS,
    Comparison,
    LayerPair,
    compare_chart,
    compare_projects,
    default_projects,
    default_threshold,
    distribution,
    filter_pairs,
    inference_time,
    layer_detail,
    parse_min_delta,
    run_latency,
    run_marks,
    sort_layer_types,
    sort_pairs,
)
from perftui.domain.errors import InputError, StoreError
from perftui.domain.options import parse_threshold
from perftui.domain.records import Project, RunResult
from perftui.domain.series import short_label
from perftui.tui.kit import format as fmt
from perftui.tui.kit.fit import cut as _cut
from perftui.tui.kit.format import escape
from perftui.tui.screens.base import PerftuiScreen
from perftui.tui.widgets.compare_charts import (
    STYLES,
    SWEET,
    SWEET_STYLE,
    DistributionBars,
    InferenceChart,
    LatencyThroughputChart,
    legend,
    mark_text,
    side_text,
)

SIDES = ("A", "B")
CHECKED, UNCHECKED = Text("[x]"), Text("[ ]")
WIDE = 100
"""From this width tables show their optional columns."""
SIDE_BY_SIDE = 150
"""From this width the kernel-level detail pane stands beside the table, not below it."""


Cell = str | Text


def _middle(name: str, width: int) -> str:
    """A project name cut in the middle: names of one family differ at the end."""
    return _cut(name, width, middle=True)


def fill_table(
    table: DataTable, columns: Sequence[tuple[str, str]], rows: Sequence[tuple[str, list[Cell]]]
) -> None:
    """Clear and refill a table with columns as wide as their widest cell, measured here
    rather than when the table is next idle, so it looks the same however fast it changes."""
    table.clear(columns=True)
    for n, (label, key) in enumerate(columns):
        width = max([cell_len(label)] + [cell_len(str(cells[n])) for _, cells in rows])
        table.add_column(label, key=key, width=width)
    for key, cells in rows:
        table.add_row(*cells, key=key)


def _right(text: str) -> Text:
    return Text(text, justify="right")


def _fmt_threshold(value: float) -> str:
    return f"{value:g}"


# ====================================================================== setup


class CompareScreen(PerftuiScreen):
    """Setup: two projects, their runs (checked ones are compared), threshold and statistic."""

    TITLE_TEXT = "Compare"
    HELP = (
        "Compare two projects, e.g. the FP32 and INT8 versions of a model. Choose project A "
        "and B (B starts as the project with the best throughput). Checked runs (space or "
        "enter in the runs table) are drawn on the chart, latency (x) against throughput (y); "
        "runs with the same settings but the batch size are joined. The latency threshold "
        "finds the sweet spot: the checked run with the highest throughput whose latency "
        "(median, p90 or p99) is at or under it. A and B mark the runs compared in detail: "
        "each side's own best run under the threshold, or one you pin with p (a run with a "
        "per-layer profile, 'yes' in Prof, gives the layer tabs). c opens the Model "
        "Performance Summary. `perftui compare A B --threshold MS --stat median` prints "
        "the same sweet spot."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "c", "compare", "Compare", id="compare", tooltip="Open the Model Performance Summary"
        ),
        Binding(
            "space",
            "toggle",
            "Check",
            id="toggle",
            tooltip="Check or uncheck the run under the cursor (enter too)",
        ),
        Binding(
            "p", "pin", "Pin", id="pin", tooltip="Compare the run under the cursor (p again unpins)"
        ),
        Binding(
            "t", "threshold", "Threshold", id="threshold", tooltip="Type the latency threshold"
        ),
        Binding("l", "stat", "Stat", id="stat", tooltip="Latency statistic: median, p90, p99"),
        Binding(
            "a",
            "check_all",
            "All/none",
            id="check_all",
            show=False,
            tooltip="Check all or none of the runs of the project under the cursor",
        ),
        Binding("x", "swap", "Swap A/B", id="swap", show=False, tooltip="Swap projects A and B"),
    ]

    def __init__(self, name_a: str | None = None, name_b: str | None = None) -> None:
        super().__init__()
        self.wanted = (name_a, name_b)
        self.projects: dict[str, Project] = {}
        self.names: dict[str, str | None] = {"A": None, "B": None}
        self.runs: dict[str, list[RunResult]] = {"A": [], "B": []}
        self.checked: dict[str, set[str]] = {"A": set(), "B": set()}
        self.pinned: dict[str, str | None] = {"A": None, "B": None}
        self.stat = "median"
        self.threshold: float | None = None
        self.threshold_error: str | None = None
        self.comparison: Comparison | None = None
        self.row_keys: list[tuple[str, str]] = []

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        try:
            options = [(p.name, p.name) for p in self.store.projects()]
        except StoreError:
            options = []
        yield Header()
        with Horizontal(id="cmp-controls"):
            for side in SIDES:
                yield Label(side, classes=f"cmp-label side-{side.lower()}")
                yield Select[str](
                    options,
                    id=f"cmp-{side.lower()}",
                    compact=True,
                    prompt=f"project {side}",
                    allow_blank=not options,
                )
            yield Label("latency ≤", classes="cmp-label")
            yield Input(id="cmp-threshold", compact=True, placeholder="ms", select_on_focus=True)
            yield Label("ms", classes="cmp-label")
            yield Select[str](
                [(s, s) for s in LATENCY_STATS],
                id="cmp-stat",
                compact=True,
                allow_blank=False,
                value="median",
            )
        yield Static("", id="cmp-note", classes="field-note")
        yield LatencyThroughputChart(id="cmp-chart")
        yield Static("", id="cmp-legend")
        yield Static("", id="cmp-sweet")
        yield DataTable(id="cmp-runs", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        if not self.load_projects():
            return
        a, b = self.names["A"], self.names["B"]
        self.sub_title = f"Compare {a} vs {b}" if a and b else "Compare"
        self.call_after_refresh(self.query_one("#cmp-runs", DataTable).focus)

    def on_resize(self) -> None:
        if self.projects:
            self.refresh_view()  # the legend and the table's columns follow the width

    # ------------------------------------------------------------------ data

    def load_projects(self) -> bool:
        """Read the projects; choose A and B (as asked, else the defaults) and load runs."""
        try:
            summaries = self.store.summaries()
        except StoreError as error:
            self.report(error, "Database")
            return False
        self.projects = {p.name: p for p, _ in summaries}
        options = [(name, name) for name in self.projects]
        default_a, default_b = default_projects(summaries)
        want_a, want_b = self.wanted
        b = want_b if want_b in self.projects else default_b
        a = want_a if want_a in self.projects and want_a != b else default_a
        if a == b:
            a = next((n for n in self.projects if n != b), None)
        with self.prevent(Select.Changed):
            for side, name in (("A", a), ("B", b)):
                select = self.query_one(f"#cmp-{side.lower()}", Select)
                if options:
                    select.set_options(options)
                if name is not None:
                    select.value = name
        self.names = {"A": a, "B": b}
        for side in SIDES:
            self.load_runs(side)
        threshold = default_threshold([*self.runs["A"], *self.runs["B"]], self.stat)
        with self.prevent(Input.Changed):
            self.query_one("#cmp-threshold", Input).value = (
                _fmt_threshold(threshold) if threshold is not None else ""
            )
        self.threshold = threshold
        self.check_threshold(self.query_one("#cmp-threshold", Input).value)
        self.refresh_view()
        return True

    def load_runs(self, side: str) -> None:
        """A side's runs from the store, all successful ones checked, no pin."""
        name = self.names[side]
        try:
            runs = self.store.runs(name) if name else []
        except StoreError as error:
            self.report(error, "Database")
            runs = []
        self.runs[side] = runs
        self.checked[side] = {r.id for r in runs if run_latency(r, self.stat) is not None}
        self.pinned[side] = None

    def on_screen_resume(self) -> None:
        """Back from elsewhere (a benchmark, say): new runs come in checked, the rest keep
        their check boxes and pins."""
        if not self.projects:
            return
        for side in SIDES:
            known = {r.id for r in self.runs[side]}
            checked, pinned = self.checked[side], self.pinned[side]
            self.load_runs(side)
            ids = {r.id for r in self.runs[side]}
            self.checked[side] = (checked & ids) | (self.checked[side] - known)
            self.pinned[side] = pinned if pinned in self.checked[side] else None
        self.refresh_view()

    def selected_runs(self, side: str) -> list[RunResult]:
        return [r for r in self.runs[side] if r.id in self.checked[side]]

    def compute(self) -> Comparison | None:
        """The comparison of the checked runs (None until two different projects are chosen)."""
        a, b = self.names["A"], self.names["B"]
        if a is None or b is None or a == b:
            return None
        return compare_projects(
            a,
            self.selected_runs("A"),
            b,
            self.selected_runs("B"),
            self.threshold if self.threshold_error is None else None,
            self.stat,
            a_pinned=self.pinned["A"],
            b_pinned=self.pinned["B"],
        )

    # ------------------------------------------------------------------ drawing

    def refresh_view(self) -> None:
        """Recompute the comparison and redraw the chart, legend, sweet spot and runs."""
        self.comparison = c = self.compute()
        chart = self.query_one("#cmp-chart", LatencyThroughputChart)
        a, b = self.names["A"], self.names["B"]
        if c is None:
            chart.set_data(None)
            chart.message = self.missing_projects_text()
        else:
            chart.message = "check runs of A or B (space in the table) to see them here"
            chart.set_data(compare_chart(c, self.selected_runs("A"), self.selected_runs("B")))
        legend_line = legend(a or "—", b or "—", self.stat, self.size.width - 2)
        self.query_one("#cmp-legend", Static).update(legend_line)
        self.query_one("#cmp-sweet", Static).update(self.sweet_text(c))
        self.fill_runs_table(c)

    def missing_projects_text(self) -> str:
        if len(self.projects) < 2:
            return (
                "Comparing needs two projects: create another (n on Projects) or add the "
                "sample models (s on Projects)."
            )
        return "Choose two different projects as A and B."

    def sweet_text(self, c: Comparison | None) -> Text:
        """The sweet spot in words, and what is missing when a side has nothing to compare."""
        lines: list[Text] = []
        if c is not None and self.threshold_error is None and self.threshold is not None:
            limit = f"{c.stat} latency ≤ {_fmt_threshold(self.threshold)} ms"
            spot = c.sweet
            if spot is None:
                lines.append(
                    Text(f"No checked run has {limit}; raise the threshold or check runs.")
                )
            else:
                name = c.a_name if spot.side == "A" else c.b_name
                lines.append(
                    Text.assemble(
                        Text(f"{SWEET} Sweet spot", style=SWEET_STYLE),
                        f" ({c.stat} ≤ {_fmt_threshold(self.threshold)} ms): ",
                        side_text(spot.side, f"{spot.side} {name}", bold=True),
                        f" {short_label(spot.run.config)}  {fmt.fps(spot.run.throughput_fps)} "
                        f"items/s at {fmt.ms(spot.latency_ms)} ms",
                    )
                )
        if c is not None:
            for side, name, run in (("A", c.a_name, c.a), ("B", c.b_name, c.b)):
                if run is None:
                    has_runs = any(run_latency(r, self.stat) is not None for r in self.runs[side])
                    lines.append(
                        Text.assemble(
                            side_text(side, f"{side} {name}", bold=True),
                            ": no run checked (space checks one)"
                            if has_runs
                            else ": no successful run yet; benchmark it (b on Projects)",
                        )
                    )
        return Text("\n").join(lines)

    def fill_runs_table(self, c: Comparison | None) -> None:
        """Both projects' runs: check box, project, settings, figures, profile, mark."""
        table = self.query_one("#cmp-runs", DataTable)
        wide = self.app.size.width >= WIDE
        cursor = table.cursor_row
        columns = [
            ("", "check"),
            ("Project", "project"),
            ("Settings", "config"),
            ("items/s", "fps"),
            (f"{self.stat} ms", "ms"),
            ("Prof", "prof"),
            ("Mark", "mark"),
        ]
        if wide:
            columns.append(("When UTC", "when"))
        marks = run_marks(c) if c is not None else {}
        self.row_keys = []
        rows: list[tuple[str, list[Cell]]] = []
        for side in SIDES:
            name = self.names[side]
            for run in self.runs[side]:
                ok = run_latency(run, self.stat) is not None
                check = CHECKED if run.id in self.checked[side] else UNCHECKED
                mark = mark_text(marks.get((side, run.id), ""))
                if self.pinned[side] == run.id:
                    mark = f"{mark} pin".strip()
                cells: list[Cell] = [
                    check if ok else Text(" - "),
                    side_text(side, f"{side} {_middle(name or '', 14 if wide else 10)}"),
                    _cut(short_label(run.config), 22 if wide else 16),
                    _right(fmt.fps(run.throughput_fps)) if ok else Text(run.status),
                    _right(fmt.ms(run_latency(run, self.stat))),
                    "yes" if run.layers else "",
                    Text(mark, style=SWEET_STYLE if SWEET in mark else f"bold {STYLES[side]}"),
                ]
                if wide:
                    cells.append(fmt.when(run.started_at)[5:])
                rows.append((f"{side}:{run.id}", cells))
                self.row_keys.append((side, run.id))
        fill_table(table, columns, rows)
        if self.row_keys:
            table.move_cursor(row=min(max(cursor, 0), len(self.row_keys) - 1), animate=False)

    # ------------------------------------------------------------------ inputs

    def check_threshold(self, text: str) -> None:
        """Validate the threshold as typed; the note under the controls says what is wrong."""
        note = self.query_one("#cmp-note", Static)
        if not str(text).strip():
            self.threshold_error = (
                "latency threshold is empty; give milliseconds, e.g. 5, to find the sweet spot"
            )
        else:
            try:
                self.threshold = parse_threshold(text)
                self.threshold_error = None
            except InputError as error:
                self.threshold_error = str(error)
        note.set_class(self.threshold_error is not None, "error")
        if self.threshold_error is not None:
            note.update(escape(self.threshold_error) + " (no sweet spot until it is fixed)")
        else:
            note.update(
                f"sweet spot: best throughput at {self.stat} latency ≤ "
                f"{_fmt_threshold(self.threshold)} ms · c compares A and B"
            )

    @on(Input.Changed, "#cmp-threshold")
    def _threshold_changed(self, event: Input.Changed) -> None:
        self.check_threshold(event.value)
        self.refresh_view()

    @on(Input.Submitted, "#cmp-threshold")
    def _threshold_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#cmp-runs", DataTable).focus()

    @on(Select.Changed, "#cmp-a")
    @on(Select.Changed, "#cmp-b")
    def _project_changed(self, event: Select.Changed) -> None:
        side = "A" if event.select.id == "cmp-a" else "B"
        other = "B" if side == "A" else "A"
        value = event.value
        if value != event.select.value:
            return  # stale: the initial choice, replaced while the screen was set up
        if not isinstance(value, str) or value == self.names[side]:
            return
        if value == self.names[other]:  # choosing the other side's project swaps them
            self.action_swap()
            return
        self.names[side] = value
        self.load_runs(side)
        self.sub_title = f"Compare {self.names['A']} vs {self.names['B']}"
        self.refresh_view()

    @on(Select.Changed, "#cmp-stat")
    def _stat_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.stat:
            self.stat = event.value
            self.check_threshold(self.query_one("#cmp-threshold", Input).value)
            self.refresh_view()

    @on(DataTable.RowSelected, "#cmp-runs")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_toggle()

    # ------------------------------------------------------------------ actions

    def current_run(self) -> tuple[str, RunResult] | None:
        table = self.query_one("#cmp-runs", DataTable)
        if not self.row_keys or not 0 <= table.cursor_row < len(self.row_keys):
            return None
        side, run_id = self.row_keys[table.cursor_row]
        run = next((r for r in self.runs[side] if r.id == run_id), None)
        return (side, run) if run is not None else None

    def comparable_run(self) -> tuple[str, RunResult] | None:
        """The run under the cursor if it can be compared; a failed run is refused aloud."""
        found = self.current_run()
        if found is not None and run_latency(found[1], self.stat) is None:
            self.app.notify(f"That run {found[1].status}; only successful runs can be compared.")
            return None
        return found

    def action_toggle(self) -> None:
        found = self.comparable_run()
        if found is None:
            return
        side, run = found
        self.checked[side] ^= {run.id}
        if run.id not in self.checked[side] and self.pinned[side] == run.id:
            self.pinned[side] = None
        self.refresh_view()

    def action_check_all(self) -> None:
        found = self.current_run()
        if found is None:
            return
        side = found[0]
        ok = {r.id for r in self.runs[side] if run_latency(r, self.stat) is not None}
        self.checked[side] = set() if self.checked[side] >= ok else ok
        if self.pinned[side] not in self.checked[side]:
            self.pinned[side] = None
        self.refresh_view()

    def action_pin(self) -> None:
        found = self.comparable_run()
        if found is None:
            return
        side, run = found
        if self.pinned[side] == run.id:
            self.pinned[side] = None
            self.app.notify(f"{side} is again its best checked run under the threshold.")
        else:
            self.pinned[side] = run.id
            self.checked[side].add(run.id)
            self.app.notify(f"{side} is now {short_label(run.config)} (p again unpins).")
        self.refresh_view()

    def action_threshold(self) -> None:
        self.query_one("#cmp-threshold", Input).focus()

    def action_stat(self) -> None:
        stat = LATENCY_STATS[(LATENCY_STATS.index(self.stat) + 1) % len(LATENCY_STATS)]
        self.query_one("#cmp-stat", Select).value = stat  # posts Select.Changed

    def action_swap(self) -> None:
        for state in (self.names, self.runs, self.checked, self.pinned):
            state["A"], state["B"] = state["B"], state["A"]  # type: ignore[index]
        with self.prevent(Select.Changed):
            for side in SIDES:
                name = self.names[side]
                if name is not None:
                    self.query_one(f"#cmp-{side.lower()}", Select).value = name
        self.sub_title = f"Compare {self.names['A']} vs {self.names['B']}"
        self.refresh_view()

    def action_compare(self) -> None:
        c = self.comparison
        if c is None:
            self.app.notify(self.missing_projects_text(), severity="warning")
            return
        if self.threshold_error is not None:
            self.app.notify(
                self.threshold_error, title="Fix the latency threshold", severity="error"
            )
            self.query_one("#cmp-threshold", Input).focus()
            return
        if c.a is None and c.b is None:
            self.app.notify("Check at least one successful run of A and of B.", severity="warning")
            return
        self.app.push_screen(CompareSummaryScreen(c))


# ====================================================================== summary

TAB_IDS = ("cmp-summary", "cmp-inference", "cmp-kernel")
TAB_NAMES = ("summary", "inference", "kernel")
TYPE_SORT_NAMES = {
    "type": "Type",
    "a_time": "A ms",
    "b_time": "B ms",
    "a_share": "A %",
    "b_share": "B %",
    "delta": "|Δ| ms",
}
LAYER_SORT_NAMES = {
    "delta": "|Δ| ms",
    "time_a": "A ms",
    "time_b": "B ms",
    "ratio": "B/A",
    "name": "Layer",
    "type": "Type",
}


def _precisions(row: object) -> str:
    counts = getattr(row, "precisions", None) or {}
    return " ".join(f"{n} {p}" for p, n in sorted(counts.items(), key=lambda kv: -kv[1]))


class SummaryPane(Widget):
    """A tab's content; fills itself from the summary screen's state."""

    DEFAULT_CSS = "SummaryPane { height: 1fr; }"

    @property
    def summary(self) -> CompareSummaryScreen:
        return self.screen  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.populate()

    def populate(self) -> None:
        """Redraw from the screen's state."""


class TypesPane(SummaryPane):
    def compose(self) -> ComposeResult:
        yield Static("", id="types-head", classes="pane-head")
        yield Static("", id="types-missing", classes="profile-notice")
        yield DataTable(id="cmp-types", cursor_type="row", zebra_stripes=True)
        yield DistributionBars(id="cmp-distribution")

    def populate(self) -> None:
        s = self.summary
        head = self.query_one("#types-head", Static)
        table = self.query_one("#cmp-types", DataTable)
        bars = self.query_one("#cmp-distribution", DistributionBars)
        missing = s.profile_notice()
        note = self.query_one("#types-missing", Static)
        note.display = missing is not None
        table.display = bars.display = head.display = missing is None
        if missing is not None:
            note.update(missing)
            return
        rows = sort_layer_types(s.comparison.layer_types, s.type_sort, s.type_descending)
        descending = s.type_sort != "type" if s.type_descending is None else s.type_descending
        arrow = "↓" if descending else "↑"
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
        cells: list[tuple[str, list[Cell]]] = [
            (
                row.type,
                [
                    CHECKED if row.type in s.included else UNCHECKED,
                    _cut(row.type, 30 if wide else 12),
                    _right(fmt.ms(row.a.time_ms) if row.a else fmt.DASH),
                    _right(fmt.pct(row.a.share) if row.a else fmt.DASH),
                    _precisions(row.a) or fmt.DASH,
                    _right(fmt.ms(row.b.time_ms) if row.b else fmt.DASH),
                    _right(fmt.pct(row.b.share) if row.b else fmt.DASH),
                    _precisions(row.b) or fmt.DASH,
                    _right(f"{row.delta_ms:+.3f}"),
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


class InferencePane(SummaryPane):
    def compose(self) -> ComposeResult:
        yield Static("", id="inference-head", classes="pane-head")
        yield InferenceChart(id="cmp-inference-chart")
        yield Static("", id="inference-figures")

    def populate(self) -> None:
        s = self.summary
        c = s.comparison
        data = inference_time(c, s.metric)
        better = "higher" if s.metric == "throughput" else "lower"
        other = "latency" if s.metric == "throughput" else "throughput"
        self.query_one("#inference-head", Static).update(
            f"[b]{s.metric.capitalize()}[/] in {data.unit}, {better} is better · m shows {other}"
        )
        self.query_one("#cmp-inference-chart", InferenceChart).set_data(data)
        lines: list[Text | str] = []
        for side, name, run in (("A", c.a_name, c.a), ("B", c.b_name, c.b)):
            head = side_text(side, f"{side} {_middle(name, 10)}".ljust(13), bold=True)
            if run is None or run.latency_ms is None:
                lines.append(Text.assemble(head, "no successful checked run"))
                continue
            st = run.latency_ms
            lines.append(
                Text.assemble(
                    head,
                    f"{_cut(short_label(run.config), 12):12} {fmt.fps(run.throughput_fps):>7} "
                    f"items/s  median {fmt.ms(st.median)} p90 {fmt.ms(st.p90)} "
                    f"p99 {fmt.ms(st.p99)} ms",
                )
            )
        tput = inference_time(c, "throughput").ratio
        lat = inference_time(c, "latency").ratio
        if tput is not None and lat is not None:
            lines.append(f"B/A: throughput {tput:.2f}x, {c.stat} latency {lat:.2f}x")
        self.query_one("#inference-figures", Static).update(
            Text("\n").join(Text(line) if isinstance(line, str) else line for line in lines)
        )


class KernelPane(SummaryPane):
    def compose(self) -> ComposeResult:
        yield Static("", id="kernel-missing", classes="profile-notice")
        with Horizontal(id="kernel-filter", classes="form-row"):
            yield Label("min |Δ| ms", classes="cmp-label")
            yield Input("0", id="cmp-delta", compact=True, placeholder="0", select_on_focus=True)
            yield Static("", id="kernel-head", classes="field-note")
        with Horizontal(id="kernel-body"):
            yield DataTable(id="cmp-layers", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="kernel-detail-box"):
                yield Static("", id="kernel-detail")

    def populate(self) -> None:
        s = self.summary
        head = self.query_one("#kernel-head", Static)
        table = self.query_one("#cmp-layers", DataTable)
        detail_box = self.query_one("#kernel-detail-box")
        missing = s.profile_notice()
        note = self.query_one("#kernel-missing", Static)
        note.display = missing is not None
        self.query_one("#kernel-filter").display = missing is None
        table.display = detail_box.display = missing is None
        if missing is not None:
            note.update(missing)
            return
        c = s.comparison
        kept = filter_pairs(c.layers, s.min_delta)
        pairs = sort_pairs(kept, s.layer_sort, s.layer_reversed)
        s.shown_pairs = pairs
        arrow = "↑" if (s.layer_sort in ("name", "type")) != s.layer_reversed else "↓"
        if s.delta_error:
            head.set_class(True, "error")
            head.update(escape(s.delta_error))
        else:
            head.set_class(False, "error")
            hidden = len(c.layers) - len(kept)
            head.update(
                f"{len(pairs)} of {len(c.layers)} layers"
                + (f" ({hidden} changed less)" if hidden else "")
                + f" · sorted by {LAYER_SORT_NAMES[s.layer_sort]} {arrow} (s, S) · f filters"
            )
        width = self.app.size.width
        side = width >= SIDE_BY_SIDE
        self.query_one("#kernel-body").set_class(side, "side")
        room = width - (56 if side else 0) - 4
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
        rows: list[tuple[str, list[Cell]]] = []
        for n, pair in enumerate(pairs):
            if pair.delta_ms is not None:
                delta = _right(f"{pair.delta_ms:+.3f}")
            else:
                side = "A" if pair.presence == "a_only" else "B"
                delta = side_text(side, f"only {side}", bold=True)
                delta.justify = "right"
            layer = pair.a or pair.b
            cells: list[Cell] = [_cut(pair.name, name_width)]
            if wide:
                cells.append(_cut(layer.type if layer else "", 18))
            cells += [
                _right(fmt.ms(pair.time_a)),
                (pair.a.precision or "?") if pair.a else fmt.DASH,
                _right(fmt.ms(pair.time_b)),
                (pair.b.precision or "?") if pair.b else fmt.DASH,
                delta,
            ]
            if wide:
                cells.append(_right(f"{pair.ratio:.2f}x" if pair.ratio is not None else fmt.DASH))
            rows.append((str(n), cells))
        fill_table(table, columns, rows)
        if pairs:
            table.move_cursor(row=min(max(cursor, 0), len(pairs) - 1), animate=False)
        self.show_detail(table.cursor_row if pairs else -1)

    def show_detail(self, row: int) -> None:
        s = self.summary
        target = self.query_one("#kernel-detail", Static)
        pairs = s.shown_pairs
        if not 0 <= row < len(pairs):
            target.update("No layer changed by at least the filter; lower it (f).")
            return
        target.update(detail_renderable(pairs[row], s.comparison))

    @on(DataTable.RowHighlighted, "#cmp-layers")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail(event.cursor_row)

    @on(Input.Changed, "#cmp-delta")
    def _delta_changed(self, event: Input.Changed) -> None:
        s = self.summary
        try:
            s.min_delta = parse_min_delta(event.value)
            s.delta_error = None
        except InputError as error:
            s.delta_error = str(error)
        self.populate()

    @on(Input.Submitted, "#cmp-delta")
    def _delta_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#cmp-layers", DataTable).focus()


RAN_IN = {"both": "both", "a": "A only", "b": "B only", "neither": "neither"}


def detail_renderable(pair: LayerPair, c: Comparison) -> Table:
    """The detail pane: each attribute in A and B, '≠' where they differ, and the notice."""
    detail = layer_detail(pair, c.a_name, c.b_name)
    table = Table(box=None, padding=(0, 1), show_edge=False, expand=True)
    table.add_column("", style="bold", no_wrap=True)
    table.add_column(Text(f"A {c.a_name}", style=f"bold {STYLES['A']}"), overflow="fold", ratio=1)
    table.add_column(Text(f"B {c.b_name}", style=f"bold {STYLES['B']}"), overflow="fold", ratio=1)
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


class CompareSummaryScreen(PerftuiScreen):
    """Model Performance Summary: layer types, inference time and kernel-level layers."""

    TITLE_TEXT = "Model Performance Summary"
    HELP = (
        "Performance Summary: per layer type, the time per request, its share and the "
        "number of layers per runtime precision in A and in B; s sorts by the next column, S "
        "reverses; space takes the highlighted type in or out of the distribution bars, a "
        "includes all or none. Inference Time: throughput of A and B, m switches to latency "
        "(the statistic chosen on the setup screen). Kernel-Level Performance: every layer of "
        "both versions, paired by name (then original, normalised or scope name); Δ is B "
        "minus A; 'only A'/'only B' marks a layer one version did not execute; f focuses the "
        "minimum |Δ| filter; the pane beside (or below) the table details the highlighted "
        "layer. Escape goes back to the setup."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "sort", "Sort", id="sort", tooltip="Sort by the next column"),
        Binding("S", "reverse_sort", "Reverse sort", id="reverse_sort", show=False),
        Binding(
            "space",
            "include",
            "In/out",
            id="include",
            tooltip="Take the layer type in or out of the distribution",
        ),
        Binding(
            "a",
            "include_all",
            "All/none",
            id="include_all",
            show=False,
            tooltip="All or no layer types in the distribution",
        ),
        Binding("m", "metric", "Thr/Lat", id="metric", tooltip="Throughput or latency bars"),
        Binding("f", "filter", "Filter", id="filter", tooltip="Minimum |Δ| ms of the layers shown"),
        Binding("]", "tab(1)", "Next tab", id="next_tab"),
        Binding("[", "tab(-1)", "Previous tab", id="previous_tab", show=False),
        *[
            Binding(
                str(n + 1),
                f"show_tab({n})",
                f"{name.capitalize()} tab",
                id=f"tab_{name}",
                show=False,
            )
            for n, name in enumerate(TAB_NAMES)
        ],
    ]
    TAB_ACTIONS: ClassVar[dict[str, set[str]]] = {
        "sort": {"cmp-summary", "cmp-kernel"},
        "reverse_sort": {"cmp-summary", "cmp-kernel"},
        "include": {"cmp-summary"},
        "include_all": {"cmp-summary"},
        "metric": {"cmp-inference"},
        "filter": {"cmp-kernel"},
    }

    def __init__(self, comparison: Comparison, tab: str = "summary") -> None:
        super().__init__()
        self.comparison = comparison
        self.sub_title = f"Summary: {comparison.a_name} vs {comparison.b_name}"
        self.initial_tab = TAB_IDS[TAB_NAMES.index(tab)] if tab in TAB_NAMES else TAB_IDS[0]
        self.type_sort = "a_time"
        self.type_descending: bool | None = None
        self.included = {
            r.type
            for r in comparison.layer_types
            if (r.a and r.a.time_ms > 0) or (r.b and r.b.time_ms > 0)
        }
        self.metric = "throughput"
        self.layer_sort = "delta"
        self.layer_reversed = False
        self.min_delta = 0.0
        self.delta_error: str | None = None
        self.shown_pairs: list[LayerPair] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.head_text(), id="cmp-head")
        with TabbedContent(initial=self.initial_tab, id="cmp-tabs"):
            with TabPane("Performance Summary", id="cmp-summary"):
                yield TypesPane()
            with TabPane("Inference Time", id="cmp-inference"):
                yield InferencePane()
            with TabPane("Kernel-Level Performance", id="cmp-kernel"):
                yield KernelPane()
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.call_after_refresh(self._focus_table)

    def on_resize(self) -> None:
        self.call_after_refresh(self.populate)

    def head_text(self) -> Text:
        c = self.comparison
        parts: list[Text | str] = []
        for side, name, run in (("A", c.a_name, c.a), ("B", c.b_name, c.b)):
            if parts:
                parts.append("  vs  ")
            parts.append(side_text(side, f"{side} {name}", bold=True))
            if run is None:
                parts.append(" no run")
            else:
                latency = run_latency(run, c.stat)
                parts.append(
                    f" {short_label(run.config)} {fmt.fps(run.throughput_fps)} items/s "
                    f"{fmt.ms(latency)} ms"
                )
        if c.threshold_ms is not None:
            spot = c.sweet
            limit = f"{c.stat} ≤ {_fmt_threshold(c.threshold_ms)} ms"
            if spot is None:
                parts.append(f"   no run has {limit}")
            else:
                name = c.a_name if spot.side == "A" else c.b_name
                parts += [
                    Text(f"   {SWEET} sweet spot", style=SWEET_STYLE),
                    f" ({limit}): ",
                    side_text(spot.side, f"{spot.side} {name}", bold=True),
                ]
        return Text.assemble(*parts)

    def profile_notice(self) -> str | None:
        """Why the layer tabs cannot compare, and how to fix it; None when both have profiles."""
        c = self.comparison
        problems = []
        for side, name, run in (("A", c.a_name, c.a), ("B", c.b_name, c.b)):
            if run is None:
                problems.append(
                    f"{side} ({escape(name)}) has no successful checked run: check one on the "
                    "setup screen (esc)."
                )
            elif not run.layers:
                problems.append(
                    f"{side} ({escape(name)}): the compared run {escape(short_label(run.config))}"
                    " has no per-layer profile."
                )
        if not problems:
            return None
        return (
            "[b]No per-layer comparison yet.[/] "
            + " ".join(problems)
            + "\nTo get one, benchmark the project with [b]per-layer profile[/] on (open it on "
            "Projects, [b]b[/], the Profile box; or `perftui bench MODEL --profile`), or go "
            "back ([b]esc[/]) and pin a run that has a profile ('yes' in Prof) with [b]p[/]."
        )

    # ------------------------------------------------------------------ state

    @property
    def active_tab(self) -> str:
        return self.query_one("#cmp-tabs", TabbedContent).active

    def populate(self) -> None:
        for pane in self.query(SummaryPane):
            pane.populate()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        tabs = self.TAB_ACTIONS.get(action)
        if tabs is None or not self.is_mounted:
            return True
        if action != "metric" and self.profile_notice() is not None:
            return False  # no layer tables to sort, include or filter
        return self.active_tab in tabs

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        self.call_after_refresh(self._focus_table)

    def _focus_table(self) -> None:
        """Put the keyboard on the tab's table so the arrows move its cursor at once."""
        pane = self.query_one(f"#{self.active_tab}", TabPane)
        tables = [t for t in pane.query(DataTable) if t.display]
        if tables:
            tables[0].focus()

    # ------------------------------------------------------------------ actions

    def action_sort(self) -> None:
        if self.active_tab == "cmp-summary":
            keys = TYPE_SORT_KEYS
            self.type_sort = keys[(keys.index(self.type_sort) + 1) % len(keys)]
            self.type_descending = None
            self.query_one(TypesPane).populate()
        else:
            keys = LAYER_SORT_KEYS
            self.layer_sort = keys[(keys.index(self.layer_sort) + 1) % len(keys)]
            self.layer_reversed = False
            self.query_one(KernelPane).populate()

    def action_reverse_sort(self) -> None:
        if self.active_tab == "cmp-summary":
            current = self.type_descending
            default = self.type_sort != "type"
            self.type_descending = not (default if current is None else current)
            self.query_one(TypesPane).populate()
        else:
            self.layer_reversed = not self.layer_reversed
            self.query_one(KernelPane).populate()

    def action_include(self) -> None:
        table = self.query_one("#cmp-types", DataTable)
        if not table.row_count or table.cursor_row < 0:
            return
        key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
        if key is not None:
            self.included ^= {key}
            self.query_one(TypesPane).populate()

    def action_include_all(self) -> None:
        everything = {r.type for r in self.comparison.layer_types}
        self.included = set() if self.included >= everything else everything
        self.query_one(TypesPane).populate()

    def action_metric(self) -> None:
        self.metric = METRICS[(METRICS.index(self.metric) + 1) % len(METRICS)]
        self.query_one(InferencePane).populate()

    def action_filter(self) -> None:
        if self.query("#cmp-delta") and self.query_one("#kernel-filter").display:
            self.query_one("#cmp-delta", Input).focus()

    def action_tab(self, step: int) -> None:
        current = TAB_IDS.index(self.active_tab) if self.active_tab in TAB_IDS else 0
        self.action_show_tab((current + step) % len(TAB_IDS))

    def action_show_tab(self, index: int) -> None:
        # let go of the focus first: focus falling on a widget of the old tab would
        # switch TabbedContent straight back to it
        tabs = self.query_one("#cmp-tabs", TabbedContent)
        if tabs.active != TAB_IDS[index]:
            self.set_focus(None)
            tabs.active = TAB_IDS[index]
