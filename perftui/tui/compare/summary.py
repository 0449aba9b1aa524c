"""The Model Performance Summary of two compared runs: layer types, inference time and the
kernel-level layers, one tab each (perftui.tui.compare.panes and .kernel)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Footer, Header, Input, Static, TabPane

from perftui.domain.charts.series import short_label
from perftui.domain.compare import Comparison, Side
from perftui.domain.compare.projects import with_alternated
from perftui.domain.errors import StoreError
from perftui.tui.compare.charts import SWEET, SWEET_STYLE, side_text, threshold_text
from perftui.tui.compare.distribution import LatencyDistributionPane
from perftui.tui.compare.environment import EnvironmentPane
from perftui.tui.compare.kernel import KernelPane
from perftui.tui.compare.panes import InferencePane, TypesPane, profile_notice
from perftui.tui.compare.state import SummaryState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.fit import distinct
from perftui.tui.kit.samples import stored_samples
from perftui.tui.kit.tabs import Tab, TabbedScreen, tab_bindings

TABS = (
    Tab("summary", "cmp-summary", "Summary tab"),
    Tab("inference", "cmp-inference", "Inference tab"),
    Tab("kernel", "cmp-kernel", "Kernel tab"),
    Tab("latency", "cmp-latency", "Latency tab"),
    Tab("environment", "cmp-environment", "Environment tab"),
)


MIN_NAME = 8
"""The fewest cells a project's name is cut to before each side takes a line of its own."""


def _figures(c: Comparison, side: Side) -> str:
    """The side's compared configuration and its figures with their intervals, as the
    Inference tab shows them (its repetitions combined)."""
    run, group = c.run(side), c.groups[0 if side is Side.A else 1]
    if run is None:
        return " no run"
    if group is None:
        return f" {short_label(run.config)} {fmt.fps(run.throughput_fps)} items/s"
    f = group.figures
    latency = fmt.ms_ci(group.latency_ms(c.stat), f.latency.get(c.stat))
    fps = fmt.fps_ci(f.throughput_fps, f.throughput)
    return f" {short_label(run.config)} {fps} items/s {latency} ms"


def head_text(c: Comparison, width: int) -> Text:
    """Each side's compared run and figures with their intervals on one line of `width`
    cells (the names cut so that they stay apart), or a line each where they do not fit
    with names of 8 cells; then the sweet spot, on a line of its own if it has no room."""
    figures = {side: _figures(c, side) for side in Side}
    room = (width - len("  vs  ") - sum(len(f) + 2 for f in figures.values())) // 2
    joint = "  vs  "
    if room < MIN_NAME:
        room, joint = width - 2 - max(len(f) for f in figures.values()), "\n"
    names = dict(zip(Side, distinct([c.name(side) for side in Side], max(8, room)), strict=True))
    parts: list[Text | str] = []
    for side in Side:
        if parts:
            parts.append(joint)
        parts += [side_text(side, f"{side} {names[side]}", bold=True), figures[side]]
    line = Text.assemble(*parts)
    if c.threshold_ms is None:
        return line
    spot = c.sweet
    limit = f"{c.stat} ≤ {threshold_text(c.threshold_ms)} ms"
    sweet = (
        Text(f"no run has {limit}")
        if spot is None
        else Text.assemble(
            Text(f"{SWEET} sweet spot", style=SWEET_STYLE),
            f" ({limit}): ",
            side_text(spot.side, f"{spot.side} {c.name(spot.side)}", bold=True),
        )
    )
    room_left = "\n" not in line.plain and len(line) + 3 + len(sweet) <= width
    return Text.assemble(line, "   " if room_left else "\n", sweet)


class CompareSummaryScreen(TabbedScreen):
    """Model Performance Summary: layer types, inference time and kernel-level layers."""

    TITLE_TEXT = "Model Performance Summary"
    HELP = (
        "Performance Summary: per layer type, the time per request, its share and the "
        "number of layers per runtime precision in A and in B; s sorts by the next column, S "
        "reverses; space takes the highlighted type in or out of the distribution bars, a "
        "includes all or none. Inference Time: throughput of A and B, m switches to latency "
        "(the statistic chosen on the setup screen); M measures both compared runs again, "
        "alternately, and judges B/A round by round (`perftui compare --measure`); where both "
        "projects have a capacity search (`perftui capacity`), their capacities and B/A, "
        "or why they cannot be compared, as `perftui compare` prints them. "
        "Kernel-Level Performance: every layer of both versions, paired by name (then "
        "original, normalised or scope name); Δ is B minus A; 'only A'/'only B' marks a "
        "layer one version did not execute; f focuses the "
        "minimum |Δ| filter; the pane beside (or below) the table details the highlighted "
        "layer. Latency Distribution: the share of requests at or under each latency (CDF) of "
        "A's and B's compared runs, from their raw samples. Escape goes back to the setup."
    )
    TABS = TABS
    SHORT_TITLES: ClassVar[dict[str, str]] = {
        "cmp-summary": "Summary",
        "cmp-inference": "Inference",
        "cmp-kernel": "Kernels",
        "cmp-latency": "Latency",
    }
    TABS_ID = "cmp-tabs"
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
        Binding(
            "M", "measure", "Measure", id="measure", tooltip="Measure A and B again, alternately"
        ),
        *tab_bindings(TABS, "Next tab"),
    ]
    TAB_ACTIONS: ClassVar[dict[str, set[str]]] = {
        "sort": {"cmp-summary", "cmp-kernel"},
        "reverse_sort": {"cmp-summary", "cmp-kernel"},
        "include": {"cmp-summary"},
        "include_all": {"cmp-summary"},
        "metric": {"cmp-inference"},
        "filter": {"cmp-kernel"},
        "measure": {"cmp-inference"},
    }

    def __init__(self, comparison: Comparison, tab: str = "") -> None:
        """Opens on `tab`, else on the layer types where both compared runs have a profile,
        else on the inference time, where the figures and verdicts are."""
        super().__init__(tab, default="summary" if comparison.profiled else "inference")
        self.state = SummaryState(comparison)
        self.measured = False
        """Whether `M` was pressed: back from it, the summary shows its paired verdict."""
        self.sub_title = f"Summary: {comparison.a_name} vs {comparison.b_name}"

    @property
    def comparison(self) -> Comparison:
        return self.state.comparison

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(head_text(self.comparison, self.app.size.width - 2), id="cmp-head")
        with self.tabbed_content():
            with TabPane("Performance Summary", id="cmp-summary"):
                yield TypesPane()
            with TabPane("Inference Time", id="cmp-inference"):
                yield InferencePane()
            with TabPane("Kernel-Level Performance", id="cmp-kernel"):
                yield KernelPane()
            with TabPane("Latency Distribution", id="cmp-latency"):
                yield LatencyDistributionPane()
            with TabPane("Environment", id="cmp-environment"):
                yield EnvironmentPane()
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.state.samples = stored_samples(self.store)
        self._read_capacities()
        self.query_one(LatencyDistributionPane).redraw()
        self.fit_tab_titles()
        self.call_after_refresh(self.focus_table)

    def _read_capacities(self) -> None:
        """Each project's benchmarks and runs, where its capacity searches are."""
        c = self.comparison
        try:
            self.state.stored = {
                side: (self.store.project_benchmarks(c.name(side)), self.store.runs(c.name(side)))
                for side in Side
            }
        except StoreError as error:
            self.report(error, "Database")
            return
        self.query_one(InferencePane).redraw()

    def on_screen_resume(self) -> None:
        """Back from `M`: the latest alternated measurement of the compared runs, judged."""
        if not self.measured:
            return
        self.measured = False
        c = self.comparison
        try:
            runs = [self.store.runs(c.name(side)) for side in Side]
        except StoreError as error:
            self.report(error, "Database")
            return
        self.state.comparison = with_alternated(c, *runs)
        self.redraw_panes()

    def on_resize(self) -> None:
        self.fit_tab_titles()
        self.query_one("#cmp-head", Static).update(head_text(self.comparison, self.size.width - 2))
        self.call_after_refresh(self.redraw_panes)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (
            action in self.TAB_ACTIONS
            and action not in ("metric", "measure")
            and self.is_mounted
            and profile_notice(self.comparison) is not None
        ):
            return False  # no layer tables to sort, include or filter
        return super().check_action(action, parameters)

    # ------------------------------------------------------------------ actions

    def action_sort(self) -> None:
        if self.active_tab == "cmp-summary":
            self.state.next_type_sort()
            self.query_one(TypesPane).redraw()
        else:
            self.state.next_layer_sort()
            self.query_one(KernelPane).redraw()

    def action_reverse_sort(self) -> None:
        if self.active_tab == "cmp-summary":
            self.state.reverse_types()
            self.query_one(TypesPane).redraw()
        else:
            self.state.reverse_layers()
            self.query_one(KernelPane).redraw()

    def action_include(self) -> None:
        table = self.query_one("#cmp-types", DataTable)
        if not table.row_count or table.cursor_row < 0:
            return
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        if key is not None:
            self.state.toggle_type(key)
            self.query_one(TypesPane).redraw()

    def action_include_all(self) -> None:
        self.state.include_all()
        self.query_one(TypesPane).redraw()

    def action_metric(self) -> None:
        self.state.next_metric()
        self.query_one(InferencePane).redraw()

    def action_measure(self) -> None:
        c = self.comparison
        if c.a is None or c.b is None:
            self.app.notify("A and B each need a successful run to measure again.")
            return
        self.measured = True
        self.perftui.measure_alternately(c)

    def action_filter(self) -> None:
        if self.query("#cmp-delta") and self.query_one("#kernel-filter").display:
            self.query_one("#cmp-delta", Input).focus()

    @on(Input.Changed, "#cmp-delta")
    def _delta_changed(self, event: Input.Changed) -> None:
        self.state.set_min_delta(event.value)
        self.query_one(KernelPane).redraw()

    @on(Input.Submitted, "#cmp-delta")
    def _delta_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#cmp-layers", DataTable).focus()
