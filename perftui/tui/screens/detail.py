"""Project detail: model summary, runs (re-run, remove), scaling charts and layer profiles."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.lazy import Lazy
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from perftui.domain.benchform import rerun_request
from perftui.domain.errors import InputError, StoreError
from perftui.domain.profile import (
    SORT_KEYS,
    flops_profile,
    latest_profiled,
    layer_rows,
    layer_type_summary,
    precision_counts,
    total_time_ms,
)
from perftui.domain.records import BenchmarkRequest, Project, RunResult
from perftui.domain.series import (
    Scaling,
    baseline,
    batch_scaling,
    batches,
    latency_bars,
    model_summary,
    ok_runs,
    short_label,
    thread_counts,
    thread_scaling,
    threads_label,
    throughput_bars,
)
from perftui.optimize.notes import Optimization, derived_projects, optimization_of
from perftui.tui.kit import format as fmt
from perftui.tui.kit.fit import cut as _cut
from perftui.tui.kit.fit import fit_parts
from perftui.tui.kit.format import escape
from perftui.tui.kit.tables import fill_table
from perftui.tui.screens.base import PerftuiScreen, one_line
from perftui.tui.screens.dialogs import ConfirmScreen
from perftui.tui.screens.optimize import open_optimize, optimization_lines
from perftui.tui.widgets.charts import BarChart, ScalingChart
from perftui.tui.widgets.modelinfo import describe

if TYPE_CHECKING:
    from perftui.inspection.model import ModelInfo

VIEWS = ("baseline", "threads", "batch", "runs")
VIEW_NAMES = {
    "baseline": "baseline",
    "threads": "thread scaling",
    "batch": "batch scaling",
    "runs": "throughput by run",
}
TABS = ("summary", "runs", "charts", "types", "layers", "flops")
TAB_IDS = ("summary", "runs-tab", "charts", "types-tab", "layers-tab", "flops-tab")
TEXT_SORTS = {"type", "precision", "name"}
TOP_BARS = 12


class Pane(Widget):
    """A tab's content; fills itself from the screen's state when mounted and on change."""

    DEFAULT_CSS = "Pane { height: 1fr; }"

    @property
    def detail(self) -> ProjectDetailScreen:
        return self.screen  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.redraw()

    def populate(self) -> None:
        """Redraw from the screen's state."""

    def redraw(self) -> None:
        """`populate`, unless the pane is being taken down (its widgets are gone already: a
        late Mount, or the model inspection ending, while the screen closes)."""
        with contextlib.suppress(NoMatches):
            self.populate()


class SummaryPane(Pane):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("", id="summary-text")

    def populate(self) -> None:
        d = self.detail
        p = d.project
        lines = [
            f"[b]Model[/]     {escape(fmt.short_path(p.model))}",
            f"[b]Engine[/]    {p.engine} on {p.device}",
        ]
        if d.optimization is not None:
            lines += optimization_lines(d.optimization)
        if d.derived:
            lines.append(f"[b]INT8[/]      {escape(', '.join(d.derived))}")
        run = d.selected
        if run is None:
            lines += ["", "No runs yet: press [b]b[/] to benchmark this project."]
        else:
            s = model_summary(run, p.engine)
            version = f" {s.engine_version}" if s.engine_version else ""
            lines[1] = f"[b]Engine[/]    {p.engine}{version} on {p.device}"
            lines += [
                f"[b]Run[/]       {fmt.when(run.started_at)}  {escape(short_label(run.config))}"
                f"  {run.status}  [dim](the run selected in Runs)[/]",
                f"[b]Batch[/] {s.batch}   [b]Threads[/] {s.threads}   [b]Streams[/] {s.streams}"
                f"   [b]Requests[/] {escape(s.requests)}",
                f"[b]Measured[/]  {fmt.ms(s.ms_per_batch)} ms/batch (median)   "
                f"{fmt.fps(s.items_per_s)} items/s",
            ]
            if run.latency_ms is not None:
                st = run.latency_ms
                lines.append(
                    f"[b]Latency[/]   min {fmt.ms(st.min)}  p90 {fmt.ms(st.p90)}  "
                    f"p99 {fmt.ms(st.p99)}  max {fmt.ms(st.max)}  cv {st.cv * 100:.1f}%"
                )
            lines.append(
                f"[b]Phases[/]    compile {fmt.ms(run.compile_ms)} ms   first inference "
                f"{fmt.ms(run.first_inference_ms)} ms   {run.iterations} requests "
                f"in {run.duration_s:.2f} s"
            )
            if run.error:
                lines.append(f"[b]Error[/]     {escape(run.error)}")
            lines.append(f"[b]ISA[/]       {escape(' '.join(s.isa) or fmt.DASH)}")
            lines.append(f"[b]CPU[/]       {escape(s.cpu)}")
        lines.append("")
        if d.info is not None:
            lines.append(describe(d.info))
        elif d.info_error:
            lines.append(f"[b]Model inspection failed[/]: {escape(d.info_error)}")
        else:
            lines.append("[dim]Inspecting the model…[/]")
        self.query_one("#summary-text", Static).update("\n".join(lines))


class RunsPane(Pane):
    def compose(self) -> ComposeResult:
        yield DataTable(id="runs", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one("#runs", DataTable)
        for label, key in (
            ("When UTC", "when"),
            ("Config", "config"),
            ("Status", "status"),
            ("items/s", "fps"),
            ("median ms", "median"),
            ("p99 ms", "p99"),
            ("Prof", "profile"),
        ):
            table.add_column(label, key=key)

    def populate(self) -> None:
        d = self.detail
        table = self.query_one("#runs", DataTable)
        table.clear()
        for run in d.runs:
            st = run.latency_ms
            ok = run.status == "ok"
            table.add_row(
                fmt.when(run.started_at, seconds=True)[5:],
                short_label(run.config),
                run.status,
                fmt.fps(run.throughput_fps if ok else None),
                fmt.ms(st.median if st else None),
                fmt.ms(st.p99 if st else None),
                "yes" if run.layers else "",
                key=run.id,
            )
        ids = [r.id for r in d.runs]
        target = d.selected_id if d.selected_id in ids else d.default_run_id()
        if target is not None:
            table.move_cursor(row=ids.index(target), animate=False)


def _one_point(data: Scaling, what: str) -> str:
    """A hint when a scaling chart has a single point (no curve to read)."""
    if len(data.points) != 1:
        return ""
    return f"\none point so far: benchmark several {what} (b) to see the scaling"


class ChartsPane(Pane):
    def compose(self) -> ComposeResult:
        yield Static("", id="chart-head", classes="pane-head")
        yield ScalingChart(id="chart-scaling")
        yield BarChart("", id="chart-bars")

    def populate(self) -> None:
        d = self.detail
        head = self.query_one("#chart-head", Static)
        scaling = self.query_one("#chart-scaling", ScalingChart)
        bars = self.query_one("#chart-bars", BarChart)
        view = d.chart_view
        keys = "  [dim]v/f[/]"
        scaling.display = view in ("threads", "batch")
        bars.display = not scaling.display
        if not ok_runs(d.runs):
            head.update(f"[b]{VIEW_NAMES[view]}[/]: no successful runs yet{keys}")
            bars.set_bars([])
            scaling.set_scaling(None)
            return
        if view == "threads":
            values = batches(d.runs)
            batch = values[d.fixed_index % len(values)]
            data = thread_scaling(d.runs, batch)
            head.update(
                f"[b]thread scaling[/] at batch {batch} [dim]({escape(data.settings)})[/]{keys}"
                + _one_point(data, "thread counts")
            )
            scaling.set_scaling(data)
        elif view == "batch":
            values = thread_counts(d.runs)
            threads = values[d.fixed_index % len(values)]
            data = batch_scaling(d.runs, threads)
            head.update(
                f"[b]batch scaling[/] at threads {threads_label(threads)} "
                f"[dim]({escape(data.settings)})[/]{keys}" + _one_point(data, "batch sizes")
            )
            scaling.set_scaling(data)
        elif view == "baseline":
            combos = d.baseline_combos()
            batch, threads = combos[d.fixed_index % len(combos)]
            run = baseline(d.runs, batch, threads)
            assert run is not None
            head.update(
                f"[b]baseline[/] batch {batch}, threads {threads_label(threads)}: "
                f"{fmt.fps(run.throughput_fps)} items/s{keys}"
            )
            bars.set_bars(latency_bars(run), title="latency (ms)")
        else:
            data = throughput_bars(d.runs, TOP_BARS)
            head.update(f"[b]throughput by run[/], oldest first (last {len(data)}){keys}")
            bars.set_bars(data, title="throughput (items/s)")


def _precisions(counts: dict[str, int]) -> str:
    return " ".join(f"{p} {n}" for p, n in sorted(counts.items(), key=lambda kv: -kv[1]))


class TypesPane(Pane):
    def compose(self) -> ComposeResult:
        yield Static("", id="types-head", classes="pane-head")
        with Horizontal(id="types-body"):
            yield DataTable(id="types", cursor_type="row", zebra_stripes=True)
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
        d = self.detail
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
        counts = _precisions(precision_counts(run.layers))
        head.update(f"{note}  total {fmt.ms(total_time_ms(run.layers))} ms/request · {counts}")
        for row in rows:
            table.add_row(
                _cut(row.type, 22),
                fmt.ms(row.time_ms),
                fmt.pct(row.share),
                fmt.bar(row.share, 8),
                str(row.layers),
                _precisions(row.precisions),
            )
        chart.set_bars([(row.type, row.share * 100) for row in rows[:TOP_BARS]])


class FittedPane(Pane):
    """A pane whose table fits its width: drawn again when the width changes."""

    fitted_width = 0

    def on_resize(self) -> None:
        if self.size.width != self.fitted_width:
            self.redraw()

    def fit(
        self,
        table: DataTable,
        columns: tuple[tuple[str, str], ...],
        rows: list[tuple[str | None, list[str]]],
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
        yield DataTable(id="layers", cursor_type="row", zebra_stripes=True)

    def populate(self) -> None:
        d = self.detail
        table = self.query_one("#layers", DataTable)
        run, note = d.profiled_run()
        head = self.query_one("#layers-head", Static)
        if run is None or not run.layers:
            head.update(note)
            self.fit(table, LAYER_COLUMNS, [], 40)
            return
        descending = (d.layer_sort not in TEXT_SORTS) != d.layer_reversed
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
                    _cut(row.type, 16),
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
        yield DataTable(id="flops", cursor_type="row", zebra_stripes=True)

    def populate(self) -> None:
        d = self.detail
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
            f"theoretical FLOPs at batch 1: {fmt.count(d.info.flops)} in "
            f"{len(rows)} nodes · {measured}"
        )
        cells = [
            (
                None,
                [
                    row.name,
                    _cut(row.op_type, 14),
                    fmt.count(row.flops),
                    fmt.pct(row.flops_share),
                    fmt.ms(row.time_ms) + (f" (+{row.shared_with})" if row.shared_with else ""),
                    fmt.pct(row.time_share),
                ],
            )
            for row in rows
        ]
        self.fit(table, FLOPS_COLUMNS, cells, 30)


class ProjectDetailScreen(PerftuiScreen):
    """One project: its runs and what they measured."""

    TITLE_TEXT = "Project"
    HELP = (
        "Summary: the selected run's settings, machine (ISA) and measured ms/batch and items/s, "
        "plus the model's inspection. Runs: newest first; the cursor selects the run the other "
        "tabs show; re-run measures its settings again, remove deletes it. Charts: baseline "
        "(latency statistics of one batch/threads point), thread scaling at a fixed batch, "
        "batch scaling at fixed threads, and throughput across runs. Types and Layers: the "
        "per-layer profile of the selected run (or the newest profiled one). FLOPs: "
        "theoretical FLOPs per node beside the measured time of the layer that ran it. "
        "INT8 (i) makes the INT8 version of the project with ONNX Runtime quantization; the "
        "Summary of an INT8 project says what it was made from and how far its outputs are "
        "from the FP32 model's."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "benchmark", "Bench", id="benchmark"),
        Binding("r", "rerun", "Re-run", id="rerun"),
        Binding("R", "rerun_benchmark", "Re-run benchmark", id="rerun_benchmark", show=False),
        Binding("d", "remove", "Remove", id="remove"),
        Binding(
            "i",
            "optimize",
            "INT8",
            id="optimize",
            tooltip="Optimize (INT8): make the INT8 version of this project",
        ),
        Binding(
            "v",
            "view",
            "View",
            id="view",
            tooltip="Charts: next view (thread scaling, batch scaling, throughput by run, "
            "baseline)",
        ),
        Binding(
            "f",
            "fixed",
            "Fixed",
            id="fixed",
            tooltip="Charts: next value of the fixed setting (batch or threads)",
        ),
        Binding("s", "sort", "Sort", id="sort", tooltip="Layers: sort by the next column"),
        Binding(
            "S",
            "reverse_sort",
            "Reverse sort",
            id="reverse_sort",
            show=False,
            tooltip="Layers: reverse the sort",
        ),
        Binding("]", "tab(1)", "Tab", id="next_tab", tooltip="Next tab (1-6: a tab by number)"),
        Binding("[", "tab(-1)", "Previous tab", id="previous_tab", show=False),
        *[
            Binding(
                str(n + 1),
                f"show_tab('{tab}')",
                f"{'FLOPs' if tab == 'flops' else tab.capitalize()} tab",
                id=f"tab_{tab}",
                show=False,
            )
            for n, tab in enumerate(TABS)
        ],
    ]

    def __init__(self, name: str, tab: str = "runs") -> None:
        super().__init__()
        self.sub_title = f"Project {name}"
        self.project_name = name
        self.project = Project(name=name, model="", engine="")
        self.runs: list[RunResult] = []
        self.selected_id: str | None = None
        self.info: ModelInfo | None = None
        self.info_error = ""
        self.optimization: Optimization | None = None
        self.derived: list[str] = []
        self.chart_view = "threads"
        self.fixed_index = 0
        self.layer_sort = "time"
        self.layer_reversed = False
        self.initial_tab = TAB_IDS[TABS.index(tab)] if tab in TABS else "runs-tab"

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="detail-head")
        with TabbedContent(initial=self.initial_tab, id="tabs"):
            with TabPane("Summary", id="summary"):
                yield SummaryPane()
            with TabPane("Runs", id="runs-tab"):
                yield RunsPane()
            with TabPane("Charts", id="charts"):
                yield Lazy(ChartsPane())
            with TabPane("Types", id="types-tab"):
                yield Lazy(TypesPane())
            with TabPane("Layers", id="layers-tab"):
                yield Lazy(LayersPane())
            with TabPane("FLOPs", id="flops-tab"):
                yield Lazy(FlopsPane())
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        if not self.load():
            return
        self._inspect()
        self.call_after_refresh(self._focus_table, self.query_one(f"#{self.initial_tab}", TabPane))

    def on_screen_resume(self) -> None:
        self.load()

    # ------------------------------------------------------------------ state

    def load(self) -> bool:
        """Read the project and its runs from the store and redraw; False if it is gone."""
        try:
            project = self.store.get_project(self.project_name)
            runs = self.store.runs(self.project_name) if project else []
            derived = derived_projects(self.project_name, self.store.projects())
        except StoreError as error:
            self.report(error, "Database")
            return False
        if project is None:
            self.app.notify(f"project '{self.project_name}' no longer exists", severity="warning")
            self.app.pop_screen()
            return False
        self.project, self.runs = project, runs
        self.optimization, self.derived = optimization_of(project), derived
        if self.selected_id not in {r.id for r in runs}:
            self.selected_id = None
        self._show_head()
        self.populate()
        return True

    def _show_head(self) -> None:
        """One line: name, engine/device, best items/s, runs, model file; what does not fit
        the width is left out in the reverse order (the Summary tab has all of it)."""
        p = self.project
        best = max((r.throughput_fps for r in ok_runs(self.runs)), default=None)
        parts = [
            (p.name, 0),
            (fmt.model_name(p.model), 4),
            (f"{p.engine}/{p.device}", 1),
            (f"{len(self.runs)} run(s)", 3),
            (f"best {fmt.fps(best)} items/s", 2),
        ]
        width = (self.size.width or self.app.size.width) - 2  # the head's padding
        name, *rest = fit_parts(parts, width)
        self.query_one("#detail-head", Static).update(
            Content.assemble((name, "bold"), *(f"  {text}" for text in rest))
        )

    def on_resize(self) -> None:
        if self.project.model:  # loaded
            self._show_head()

    def default_run_id(self) -> str | None:
        """The run shown before any is picked: the newest successful one, else the newest."""
        ok = ok_runs(self.runs)
        run = ok[0] if ok else (self.runs[0] if self.runs else None)
        return run.id if run else None

    @property
    def selected(self) -> RunResult | None:
        """The run under the Runs cursor, else the default run."""
        wanted = self.selected_id or self.default_run_id()
        return next((run for run in self.runs if run.id == wanted), None)

    def profiled_run(self) -> tuple[RunResult | None, str]:
        """The run whose profile the layer tabs show, and a line saying which one it is."""
        selected = self.selected
        if selected is not None and selected.layers:
            run, why = selected, "selected run"
        else:
            run, why = latest_profiled(self.runs), "newest profiled run"
        if run is None:
            return None, (
                "No per-layer profile yet: benchmark with 'per-layer profile' on "
                "(b, then the Profile box)."
            )
        note = f"[b]{why}[/] {fmt.when(run.started_at)} {escape(short_label(run.config))}"
        if selected is not None and not selected.layers and self.selected_id:
            note += " [dim](the selected run has no profile)[/]"
        return run, note

    def baseline_combos(self) -> list[tuple[int, int]]:
        """(batch, threads) points with a successful run, in ascending order."""
        return sorted({(r.config.batch, r.config.threads) for r in ok_runs(self.runs)})

    def populate(self) -> None:
        for pane in self.query(Pane):
            pane.redraw()

    # ------------------------------------------------------------------ inspection

    @work(thread=True, exit_on_error=False, name="inspect", group="inspect")
    def _inspect(self) -> None:
        info = self.perftui.services.inspect(self.project.model)
        self.app.call_from_thread(self._inspected, info)

    def _inspected(self, info: ModelInfo) -> None:
        self.info = info
        self.populate()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.info_error = one_line(event.worker.error)
            self.populate()

    # ------------------------------------------------------------------ events and actions

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.call_after_refresh(self._focus_table, event.pane)

    def _focus_table(self, pane: TabPane) -> None:
        """Put the keyboard on the tab's table so the arrows move its cursor at once."""
        tables = pane.query(DataTable)
        if tables:
            tables.first().focus()

    @on(DataTable.RowHighlighted, "#runs")
    def _run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row != event.data_table.cursor_row:
            return  # a stale event: the cursor has moved on (e.g. to the default run)
        key = event.row_key.value if event.row_key is not None else None
        if key and key != self.selected_id:
            self.selected_id = key
            for pane in self.query(Pane):
                if not isinstance(pane, RunsPane):
                    pane.redraw()

    def _need_run(self) -> RunResult | None:
        run = self.selected
        if run is None:
            self.app.notify("No run selected; press b to benchmark this project.")
        return run

    def action_benchmark(self) -> None:
        from perftui.tui.screens.configure import BenchmarkConfigScreen

        self.app.push_screen(BenchmarkConfigScreen(self.project))

    def action_optimize(self) -> None:
        open_optimize(self.perftui, self.project.name)

    def action_rerun(self) -> None:
        if (run := self._need_run()) is None:
            return
        try:
            stored = self.store.benchmark(run.benchmark_id) if run.benchmark_id else None
        except StoreError as error:
            self.report(error, "Database")
            return
        request = rerun_request(stored, self.project, run.config)
        self.app.notify(f"Re-running {short_label(run.config)}")
        self.perftui.run_benchmarks([request], validated=False)

    def action_rerun_benchmark(self) -> None:
        if (run := self._need_run()) is None:
            return
        try:
            stored = self.store.benchmark(run.benchmark_id) if run.benchmark_id else None
            request = BenchmarkRequest.from_dict(stored) if stored else None
        except (StoreError, KeyError, TypeError, ValueError) as error:
            self.report(error, "Re-run")
            return
        if request is None:
            self.action_rerun()
            return
        from dataclasses import replace

        self.perftui.run_benchmarks([replace(request, project=self.project)], validated=False)

    def action_remove(self) -> None:
        if (run := self._need_run()) is None:
            return

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.store.delete_run(run.id)
            except (InputError, StoreError) as error:
                self.report(error, "Remove")
                return
            self.selected_id = None
            self.load()
            self.app.notify(f"Removed run {short_label(run.config)} of {fmt.when(run.started_at)}")

        detail = (
            f"{fmt.when(run.started_at)}  {short_label(run.config)}  {run.status}, with "
            "its latency samples and profile. This cannot be undone."
        )
        self.app.push_screen(ConfirmScreen("Remove this run?", detail), answer)

    def action_view(self) -> None:
        self.chart_view = VIEWS[(VIEWS.index(self.chart_view) + 1) % len(VIEWS)]
        self.fixed_index = 0
        self.query_one("#tabs", TabbedContent).active = "charts"
        self.populate()

    def action_fixed(self) -> None:
        self.fixed_index += 1
        self.query_one("#tabs", TabbedContent).active = "charts"
        self.populate()

    def action_sort(self) -> None:
        self.layer_sort = SORT_KEYS[(SORT_KEYS.index(self.layer_sort) + 1) % len(SORT_KEYS)]
        self.layer_reversed = False
        self.query_one("#tabs", TabbedContent).active = "layers-tab"
        self.populate()

    def action_reverse_sort(self) -> None:
        self.layer_reversed = not self.layer_reversed
        self.query_one("#tabs", TabbedContent).active = "layers-tab"
        self.populate()

    def action_tab(self, step: int) -> None:
        tabs = self.query_one("#tabs", TabbedContent)
        ids = TAB_IDS
        current = ids.index(tabs.active) if tabs.active in ids else 0
        tabs.active = ids[(current + step) % len(ids)]

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#tabs", TabbedContent).active = TAB_IDS[TABS.index(tab)]
