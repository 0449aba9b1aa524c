"""Project detail: model summary, runs (re-run, remove), scaling charts and layer profiles."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.lazy import Lazy
from textual.widgets import DataTable, Footer, Header, Static, TabPane

from perftui.domain.charts.series import short_label
from perftui.domain.errors import InputError, StoreError
from perftui.domain.forms.bench import rerun_request
from perftui.domain.records import Project, RunResult
from perftui.domain.report.document import project_report
from perftui.optimize.notes import derived_projects, optimization_of
from perftui.tui.detail.distribution import DistributionPane
from perftui.tui.detail.history import HistoryPane, find_gate
from perftui.tui.detail.layers import FlopsPane, LayersPane, TypesPane
from perftui.tui.detail.panes import ChartsPane, RunsPane, SummaryPane
from perftui.tui.detail.state import DetailState
from perftui.tui.detail.traffic import TrafficPane
from perftui.tui.kit import format as fmt
from perftui.tui.kit.dialogs import ConfirmScreen
from perftui.tui.kit.fit import fit_parts
from perftui.tui.kit.inspection import InspectingScreen
from perftui.tui.kit.keys import BENCH, TUNE, optimize_key
from perftui.tui.kit.samples import stored_samples
from perftui.tui.kit.screen import one_line
from perftui.tui.kit.tabs import Pane, Tab, TabbedScreen, tab_bindings

if TYPE_CHECKING:
    from perftui.domain.model.model_info import ModelInfo

TABS = (
    Tab("summary", "summary", "Summary tab"),
    Tab("runs", "runs-tab", "Runs tab"),
    Tab("charts", "charts", "Charts tab"),
    Tab("types", "types-tab", "Types tab"),
    Tab("layers", "layers-tab", "Layers tab"),
    Tab("flops", "flops-tab", "FLOPs tab"),
    Tab("latency", "latency-tab", "Latency tab"),
    Tab("history", "history-tab", "History tab"),
    Tab("traffic", "traffic-tab", "Traffic tab"),
)


class ProjectDetailScreen(TabbedScreen, InspectingScreen):
    """One project: its runs and what they measured."""

    TITLE_TEXT = "Project"
    HELP = (
        "Summary: the selected run's settings, machine (ISA) and measured ms/batch and items/s, "
        "plus the model's inspection. Runs: newest first; the cursor selects the run the other "
        "tabs show; re-run measures its settings again, remove deletes it. Each figure has its "
        "95 % interval (812 ±3%; ±? where the samples are too few to bound it) and Verdict is "
        "the run's: stable, noisy (less certain figures) or INVALID (the machine, not the "
        "model, set the pace); the line under the table says why. $/M inf, where a run was "
        "measured at a price: what a million inferences cost. Where the settings would "
        "be cut, Prof, When, peak and p99 give way (the line under the table and Summary say "
        "them for the selected run). Charts: baseline "
        "(latency statistics of one batch/threads point), thread scaling at a fixed batch, "
        "batch scaling at fixed threads, and throughput across runs. Types and Layers: the "
        "per-layer profile of the selected run (or the newest profiled one). FLOPs: "
        "theoretical FLOPs per node beside the measured time of the layer that ran it. "
        "Latency: the selected run's latency histogram and its latency over the run (the "
        "median and the slowest request of each chunk of requests), from its raw samples. "
        "History: the selected run's configuration across the project's benchmarks over "
        "time, each with its interval, its runs' verdict (the Runs tab says why) and what "
        "changed in the environment, the change "
        "points beyond the noise, and the newest gate's verdict (`perftui gate`). Traffic: for "
        "runs at a rate (an open loop), p50 and p99 latency from arrival against the offered "
        "rate, a configuration at a time (f: the next), each with its interval, and a table "
        "of its rates: achieved rate, latencies, queue, the scheduler's lateness, the verdict "
        "and why a point is not the engine's latency (S saturated, L the scheduler late); with a "
        "capacity search (`perftui capacity`), its objective's line, the capacity marked on "
        "its configuration's curve and, above, the capacity with its interval beside the "
        "closed-loop maximum. "
        f"INT8 (i) makes the INT8 version of the project ({fmt.QUANTIZERS_TEXT}); the "
        "Summary of an INT8 project says what it was made from and how far its outputs are "
        "from the FP32 model's."
    )
    TABS = TABS
    BINDINGS: ClassVar[list[BindingType]] = [
        BENCH,
        Binding(
            "r",
            "rerun",
            "Re-run",
            id="rerun",
            tooltip="Measure the selected run's configuration again, as many times as its "
            "benchmark did (Repeat)",
        ),
        Binding("R", "rerun_benchmark", "Re-run all", id="rerun_benchmark"),
        Binding("d", "remove", "Remove", id="remove"),
        TUNE,
        Binding(
            "e", "report", "Report", id="report", tooltip="Write the report (Markdown and HTML)"
        ),
        optimize_key("this project"),
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
            tooltip="Charts: the next series: the next value of the fixed setting (batch or "
            "threads) or the next set of other settings (api, dims, ...); Traffic: the next "
            "configuration",
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
        *tab_bindings(TABS, "Tab", "Next tab (1-9: a tab by number)"),
    ]
    TAB_ACTIONS: ClassVar[dict[str, set[str]]] = {
        "rerun": {"summary", "runs-tab"},
        "rerun_benchmark": {"summary", "runs-tab"},
        "remove": {"summary", "runs-tab"},
        "view": {"charts"},
        "fixed": {"charts", "traffic-tab"},
        "sort": {"layers-tab"},
        "reverse_sort": {"layers-tab"},
    }

    def __init__(self, name: str, tab: str = "runs") -> None:
        super().__init__(tab, default="runs")
        self.sub_title = f"Project {name}"
        self.project_name = name
        self.state = DetailState(Project(name=name, model="", engine=""))
        self.loaded = False
        """Whether the project and its runs were read once (else nothing true is shown)."""
        self._inspecting: tuple[dict[str, tuple[int, ...]] | None] | None = None
        """The shapes of the inspection under way (None: none is)."""

    @property
    def info(self) -> ModelInfo | None:
        return self.state.info

    @property
    def selected(self) -> RunResult | None:
        return self.state.selected

    @property
    def derived(self) -> list[str]:
        return self.state.derived

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="detail-head")
        with self.tabbed_content():
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
            with TabPane("Latency", id="latency-tab"):
                yield Lazy(DistributionPane())
            with TabPane("History", id="history-tab"):
                yield Lazy(HistoryPane())
            with TabPane("Traffic", id="traffic-tab"):
                yield Lazy(TrafficPane())
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.state.samples = stored_samples(self.store)
        if not self.load():
            return
        self._inspect_at_run_shapes()
        self.call_after_refresh(self.focus_table)

    def on_screen_resume(self) -> None:
        self.load()

    # ------------------------------------------------------------------ state

    def load(self) -> bool:
        """Read the project and its runs from the store and redraw; False if it is gone."""
        try:
            project = self.store.get_project(self.project_name)
            runs = self.store.runs(self.project_name) if project else []
            benchmarks = self.store.project_benchmarks(self.project_name) if project else []
            derived = derived_projects(self.project_name, self.store.projects())
            gate = find_gate(self.store, self.project_name, runs) if project else None
        except StoreError as error:
            if self.loaded:
                self.report(error, "Database")
            elif self.is_current:  # nothing read: no tab may say "no runs yet" (said once:
                self.report(error, "Database")  # both mounting and showing it load)
                self.app.pop_screen()
            return False
        if project is None:
            self.app.notify(f"project '{self.project_name}' no longer exists", severity="warning")
            self.app.pop_screen()
            return False
        s = self.state
        self.loaded = True
        s.project, s.runs, s.benchmarks = project, runs, benchmarks
        s.optimization, s.derived = optimization_of(project), derived
        s.gate = gate
        if s.selected_id not in {r.id for r in runs}:
            s.selected_id = None
        self._show_head()
        self.redraw_panes()
        return True

    def _show_head(self) -> None:
        """One line: name, engine/device, best configuration's items/s, runs, model file;
        what does not fit
        the width is left out in the reverse order (the Summary tab has all of it)."""
        p, runs = self.state.project, self.state.runs
        best = self.state.best_group()
        parts = [
            (p.name, 0),
            (fmt.model_name(p.model), 4),
            (f"{p.engine}/{p.device}", 1),
            (f"{len(runs)} run(s)", 3),
        ]
        if best is not None:  # as the projects list shows it: a configuration, combined
            figures = best.figures
            fps = fmt.fps_ci(figures.throughput_fps, figures.throughput)
            mark = fmt.verdict_mark(figures.verdict.status)
            parts.append((f"best {fps} items/s {mark} at {short_label(best.config)}", 2))
        width = (self.size.width or self.app.size.width) - 2  # the head's padding
        name, *rest = fit_parts(parts, width)
        self.query_one("#detail-head", Static).update(
            Content.assemble((name, "bold"), *(f"  {text}" for text in rest))
        )

    def on_resize(self) -> None:
        if self.state.project.model:  # loaded
            self._show_head()

    # ------------------------------------------------------------------ inspection

    def _inspect_at_run_shapes(self) -> None:
        """Inspect the model (again) when the FLOPs shown are not at the shapes of the run
        they stand beside (a seq=128 inspection beside a seq=64 profile)."""
        wanted = self.state.flops_shapes()
        info = self.state.info
        if info is not None and (wanted is None or info.flops_shapes == wanted):
            return
        if self._inspecting is not None and self._inspecting == (wanted,):
            return
        self._inspecting = (wanted,)
        self.inspect_model(self.state.project.model, wanted)

    def inspected(self, path: str, info: ModelInfo) -> None:
        self._inspecting = None
        self.state.info = info
        self.redraw_panes()

    def inspect_failed(self, error: BaseException) -> None:
        self._inspecting = None
        self.state.info_error = one_line(error)
        self.redraw_panes()

    # ------------------------------------------------------------------ events and actions

    @on(DataTable.RowHighlighted, "#runs")
    def _run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row != event.data_table.cursor_row:
            return  # a stale event: the cursor has moved on (e.g. to the default run)
        key = event.row_key.value if event.row_key is not None else None
        if key and key != self.state.selected_id:
            self.state.selected_id = key
            for pane in self.query(Pane):
                if not isinstance(pane, RunsPane):
                    pane.redraw()
            self._inspect_at_run_shapes()

    def _need_run(self) -> RunResult | None:
        run = self.state.selected
        if run is None:
            self.app.notify("No run selected; press b to benchmark this project.")
        return run

    def action_benchmark(self) -> None:
        self.perftui.configure_benchmark(self.state.project.name)

    def action_tune(self) -> None:
        self.perftui.tune_project(self.state.project.name)

    def action_optimize(self) -> None:
        self.perftui.optimize_project(self.state.project.name)

    def action_rerun(self) -> None:
        if (run := self._need_run()) is None:
            return
        try:
            stored = self.store.get_benchmark(run.benchmark_id) if run.benchmark_id else None
        except StoreError as error:
            self.report(error, "Database")
            return
        request = rerun_request(stored.request if stored else None, self.state.project, run.config)
        times = (
            f" {request.repeat} times, each in a fresh worker, as its benchmark measured it "
            f"(Repeat {request.repeat})"
            if request.repeat > 1
            else ""
        )
        self.app.notify(f"Re-running {short_label(run.config)}{times}", title="Re-run")
        self.perftui.run_benchmarks([request], validated=False)

    def action_report(self) -> None:
        d = self.state
        report = project_report(d.project, d.runs, d.samples, capacity=d.capacity())
        self.perftui.write_report(report, d.project.name)

    def action_rerun_benchmark(self) -> None:
        if (run := self._need_run()) is None:
            return
        try:
            stored = self.store.get_benchmark(run.benchmark_id) if run.benchmark_id else None
        except StoreError as error:
            self.report(error, "Re-run")
            return
        if stored is None:
            self.action_rerun()
            return
        project = self.state.project
        self.perftui.run_benchmarks([replace(stored.request, project=project)], validated=False)

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
            self.state.selected_id = None
            self.load()
            self.app.notify(f"Removed run {short_label(run.config)} of {fmt.when(run.started_at)}")

        detail = (
            f"{fmt.when(run.started_at)}  {short_label(run.config)}  {run.status}, with "
            "its latency samples and profile. This cannot be undone."
        )
        self.app.push_screen(ConfirmScreen("Remove this run?", detail), answer)

    def action_view(self) -> None:
        self.state.next_view()
        self.redraw_panes()

    def action_fixed(self) -> None:
        if self.active_tab == "traffic-tab":
            self.state.curve_index += 1
        else:
            self.state.fixed_index += 1
        self.redraw_panes()

    def action_sort(self) -> None:
        self.state.next_layer_sort()
        self.redraw_panes()

    def action_reverse_sort(self) -> None:
        self.state.layer_reversed = not self.state.layer_reversed
        self.redraw_panes()
