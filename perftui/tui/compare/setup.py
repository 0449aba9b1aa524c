"""Compare two projects, as the Workbench's "Compare performance between two versions of a
model": the setup (projects, runs, latency threshold, sweet spot on a latency/throughput
chart); c opens the Model Performance Summary (perftui.tui.compare.summary).

Everything shown comes from perftui.domain.compare, the same functions `perftui compare`
uses, so the screen and the CLI agree on the sweet spot for the same runs, threshold and
statistic.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Header, Input, Select, Static

from perftui.domain.charts.series import short_label
from perftui.domain.compare import (
    Comparison,
    Side,
    compare_chart,
    default_projects,
    default_threshold,
    run_latency,
)
from perftui.domain.compare.ranking import RANK_WORDS
from perftui.domain.errors import StoreError
from perftui.domain.measurement.statistic import LATENCY_NAMES
from perftui.domain.records import Project, RunResult
from perftui.domain.report.document import comparison_report
from perftui.tui.compare.charts import LatencyThroughputChart, legend, threshold_text
from perftui.tui.compare.controls import project_options, setup_controls
from perftui.tui.compare.runs import RunKey, fill_runs, sweet_text
from perftui.tui.compare.state import SetupState
from perftui.tui.kit.format import escape
from perftui.tui.kit.samples import stored_samples
from perftui.tui.kit.screen import PerftuiScreen
from perftui.tui.kit.tables import RowTable

WIDE = 100
"""From this width the runs table shows the run's start time."""


class CompareScreen(PerftuiScreen):
    """Setup: two projects, their runs (checked ones are compared), threshold and statistic."""

    TITLE_TEXT = "Compare"
    HELP = (
        "Compare two projects, e.g. the FP32 and INT8 versions of a model. Choose project A "
        "and B (B starts as the project with the best throughput). Checked runs (space or "
        "enter in the runs table) are drawn on the chart, latency (x) against throughput (y); "
        "runs with the same settings but the batch size are joined. The latency threshold "
        "finds the sweet spot: the checked configuration (its repetitions combined) with the "
        "highest throughput whose latency (median, p90 or p99) is at or under it and, with a "
        "memory limit (m), whose memory peak is at or under that many MiB. A and B mark the "
        "runs compared in detail: each side's own best configuration under the threshold, "
        "or a run you pin with p (a run with a "
        "per-layer profile, 'yes' in Prof, gives the layer tabs; $/M inf, where a run was "
        "measured at a price, is what a million inferences cost; r then ranks the sweet spot "
        "by the lowest cost instead of the best throughput). c opens the Model "
        "Performance Summary. `perftui compare A B --threshold MS --stat median "
        "--max-memory MB` prints the same sweet spot."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "c", "compare", "Compare", id="compare", tooltip="Open the Model Performance Summary"
        ),
        Binding(
            "space",
            "check_run",
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
        Binding("r", "rank", "Rank", id="rank", tooltip="Sweet spot: throughput or cost"),
        Binding("m", "memory", "Memory", id="memory", show=False, tooltip="Type the memory limit"),
        Binding("e", "report", "Report", id="report", tooltip="Write the report (Markdown, HTML)"),
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
        self.state = SetupState()
        self.comparison: Comparison | None = None
        self.row_keys: list[RunKey] = []

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        try:
            names = [p.name for p in self.store.projects()]
        except StoreError:
            names = []
        yield Header()
        yield from setup_controls(names)
        yield Static("", id="cmp-note", classes="field-note")
        yield LatencyThroughputChart(id="cmp-chart")
        yield Static("", id="cmp-legend")
        yield Static("", id="cmp-sweet")
        yield RowTable(id="cmp-runs")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.state.samples = stored_samples(self.store)
        if not self.load_projects():
            return
        self._show_title()
        self.call_after_refresh(self.query_one("#cmp-runs", DataTable).focus)

    def on_resize(self) -> None:
        if self.projects:
            self.call_after_refresh(self._show_options)  # once the selects have their width
            self.refresh_view()  # the legend and the table's columns follow the width

    def _show_title(self) -> None:
        a, b = self.state.sides[Side.A].name, self.state.sides[Side.B].name
        self.sub_title = f"Compare {a} vs {b}" if a and b else "Compare"

    def _select(self, side: Side) -> Select[str]:
        return self.query_one(f"#cmp-{side.value.lower()}", Select)

    def _show_options(self) -> None:
        """The projects in the A and B selects, cut to their width so names stay apart."""
        if not self.projects:
            return
        room = self._select(Side.A).size.width - 3  # the arrow and padding
        options = project_options(list(self.projects), room)
        with self.prevent(Select.Changed):
            for side in Side:
                select = self._select(side)
                value = select.value
                select.set_options(options)
                if value in self.projects:
                    select.value = value

    # ------------------------------------------------------------------ data

    def load_projects(self) -> bool:
        """Read the projects; choose A and B (as asked, else the defaults) and load runs."""
        try:
            summaries = self.store.summaries()
        except StoreError as error:
            self.report(error, "Database")
            return False
        self.projects = {p.name: p for p, _ in summaries}
        self._show_options()
        default_a, default_b = default_projects(summaries)
        want_a, want_b = self.wanted
        b = want_b if want_b in self.projects else default_b
        a = want_a if want_a in self.projects and want_a != b else default_a
        if a == b:
            a = next((n for n in self.projects if n != b), None)
        with self.prevent(Select.Changed):
            for side, name in zip(Side, (a, b), strict=True):
                if name is not None:
                    self._select(side).value = name
        state = self.state
        for side, name in zip(Side, (a, b), strict=True):
            state.sides[side].name = name
            state.sides[side].load(self.runs_of(name), state.stat)
        threshold = default_threshold(state.all_runs(), state.stat)
        with self.prevent(Input.Changed):
            self.query_one("#cmp-threshold", Input).value = (
                threshold_text(threshold) if threshold is not None else ""
            )
        state.threshold = threshold
        self.check_limits()
        self.refresh_view()
        return True

    def runs_of(self, name: str | None) -> list[RunResult] | None:
        """A project's runs from the store (None when they cannot be read)."""
        try:
            return self.store.runs(name) if name else []
        except StoreError as error:
            self.report(error, "Database")
            return None

    def on_screen_resume(self) -> None:
        """Back from elsewhere (a benchmark, say): new runs come in checked, the rest keep
        their check boxes and pins."""
        if not self.projects:
            return
        for runs in self.state.sides.values():
            runs.reload(self.runs_of(runs.name), self.state.stat)
        self.refresh_view()

    # ------------------------------------------------------------------ drawing

    def refresh_view(self) -> None:
        """Recompute the comparison and redraw the chart, legend, sweet spot and runs."""
        state = self.state
        self.comparison = c = state.compare()
        chart = self.query_one("#cmp-chart", LatencyThroughputChart)
        if c is None:
            chart.set_data(None)
            chart.message = self.missing_projects_text()
        else:
            chart.message = "check runs of A or B (space in the table) to see them here"
            a, b = (state.sides[side].selected() for side in Side)
            chart.set_data(compare_chart(c, a, b))
        a_name, b_name = (name or "—" for name in state.names().values())
        legend_line = legend(a_name, b_name, state.stat, self.size.width - 2)
        self.query_one("#cmp-legend", Static).update(legend_line)
        self.query_one("#cmp-sweet", Static).update(sweet_text(self.state, c))
        self.fill_runs_table(c)
        self.refresh_bindings()  # r ranks by cost once a run has a price

    def missing_projects_text(self) -> str:
        if len(self.projects) < 2:
            return (
                "Comparing needs two projects: create another (n on Projects) or add the "
                "sample models (s on Projects)."
            )
        return "Choose two different projects as A and B."

    def fill_runs_table(self, c: Comparison | None) -> None:
        """Both projects' runs, the cursor kept on the same row."""
        table = self.query_one("#cmp-runs", DataTable)
        cursor = table.cursor_row
        wide = self.app.size.width >= WIDE
        self.row_keys = fill_runs(table, self.state, c, wide=wide, projects=self.projects)
        if not table.size.width:  # not laid out yet: fit again once it has its width
            self.call_after_refresh(self.fill_runs_table, c)
        if self.row_keys:
            table.move_cursor(row=min(max(cursor, 0), len(self.row_keys) - 1), animate=False)

    # ------------------------------------------------------------------ inputs

    def check_limits(self) -> None:
        """Validate the threshold and the memory limit as typed; the note under the controls
        says what is wrong."""
        state = self.state
        state.type_threshold(self.query_one("#cmp-threshold", Input).value)
        state.type_memory(self.query_one("#cmp-memory", Input).value)
        text, wrong = state.limits_note()
        note = self.query_one("#cmp-note", Static)
        note.set_class(wrong, "error")
        note.update(escape(text))

    @on(Input.Changed, "#cmp-threshold")
    @on(Input.Changed, "#cmp-memory")
    def _limit_changed(self, event: Input.Changed) -> None:
        self.check_limits()
        self.refresh_view()

    @on(Input.Submitted, "#cmp-threshold")
    @on(Input.Submitted, "#cmp-memory")
    def _limit_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#cmp-runs", DataTable).focus()

    @on(Select.Changed, "#cmp-a")
    @on(Select.Changed, "#cmp-b")
    def _project_changed(self, event: Select.Changed) -> None:
        side = Side.A if event.select.id == "cmp-a" else Side.B
        value = event.value
        if value != event.select.value:
            return  # stale: the initial choice, replaced while the screen was set up
        runs = self.state.sides[side]
        if not isinstance(value, str) or value == runs.name:
            return
        if value == self.state.sides[side.other].name:  # the other side's project: swap
            self.action_swap()
            return
        runs.name = value
        runs.load(self.runs_of(value), self.state.stat)
        self._show_title()
        self.refresh_view()

    @on(Select.Changed, "#cmp-stat")
    def _stat_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.state.stat:
            self.state.stat = event.value
            self.check_limits()
            self.refresh_view()

    @on(DataTable.RowSelected, "#cmp-runs")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_check_run()

    # ------------------------------------------------------------------ actions

    def current_run(self) -> tuple[Side, RunResult] | None:
        table = self.query_one("#cmp-runs", DataTable)
        if not self.row_keys or not 0 <= table.cursor_row < len(self.row_keys):
            return None
        side, run_id = self.row_keys[table.cursor_row]
        run = self.state.sides[side].find(run_id)
        return (side, run) if run is not None else None

    def comparable_run(self) -> tuple[Side, RunResult] | None:
        """The run under the cursor if it can be compared; a failed run is refused aloud."""
        found = self.current_run()
        if found is not None and run_latency(found[1], self.state.stat) is None:
            self.app.notify(f"That run {found[1].status}; only successful runs can be compared.")
            return None
        return found

    def action_check_run(self) -> None:
        if (found := self.comparable_run()) is not None:
            side, run = found
            self.state.sides[side].toggle(run.id)
            self.refresh_view()

    def action_check_all(self) -> None:
        if (found := self.current_run()) is not None:
            self.state.sides[found[0]].check_all(self.state.stat)
            self.refresh_view()

    def action_pin(self) -> None:
        if (found := self.comparable_run()) is None:
            return
        side, run = found
        if self.state.sides[side].pin(run.id):
            self.app.notify(f"{side} is now {short_label(run.config)} (p again unpins).")
        else:
            self.app.notify(f"{side} is again its best checked run under the threshold.")
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.state.priced() if action == "rank" else True

    def action_rank(self) -> None:
        if not self.state.priced():
            return
        self.state.next_rank()
        self.check_limits()
        self.refresh_view()
        self.app.notify(f"Sweet spot: {RANK_WORDS[self.state.rank]}.", title="Rank")

    def action_threshold(self) -> None:
        self.query_one("#cmp-threshold", Input).focus()

    def action_memory(self) -> None:
        self.query_one("#cmp-memory", Input).focus()

    def action_stat(self) -> None:
        stat = LATENCY_NAMES[(LATENCY_NAMES.index(self.state.stat) + 1) % len(LATENCY_NAMES)]
        self.query_one("#cmp-stat", Select).value = stat  # posts Select.Changed

    def action_swap(self) -> None:
        self.state.swap()
        with self.prevent(Select.Changed):
            for side, name in self.state.names().items():
                if name is not None:
                    self._select(side).value = name
        self._show_title()
        self.refresh_view()

    def action_report(self) -> None:
        """The comparison of the checked runs, as shown, to share."""
        c = self.comparison
        if c is None:
            self.app.notify(self.missing_projects_text(), severity="warning")
            return
        sides = self.state.sides
        projects = {side: self.projects[c.name(side)] for side in Side}
        runs = {side: sides[side].selected() for side in Side}
        samples = self.store.latency_samples
        report = comparison_report(c, projects, runs, lambda run: samples(run.id))
        self.perftui.write_report(report, c.a_name, c.b_name)

    def action_compare(self) -> None:
        c = self.comparison
        if c is None:
            self.app.notify(self.missing_projects_text(), severity="warning")
            return
        for error, what, field in (
            (self.state.threshold_error, "the latency threshold", "#cmp-threshold"),
            (self.state.memory_error, "the memory limit", "#cmp-memory"),
        ):
            if error is not None:
                self.app.notify(error, title=f"Fix {what}", severity="error")
                self.query_one(field, Input).focus()
                return
        if c.a is None and c.b is None:
            self.app.notify("Check at least one successful run of A and of B.", severity="warning")
            return
        self.perftui.compare_summary(c)
