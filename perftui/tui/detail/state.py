"""What the project detail screen shows: the project, its runs, the run selected in Runs,
the model's inspection, the chart view and the layer sort. Panes read it; the screen owns
it and changes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perftui.domain.charts.series import ok_runs, short_label
from perftui.domain.charts.traffic import TrafficCurve, curve_of, traffic_curves
from perftui.domain.labels import ConfigLabels, config_labels
from perftui.domain.measurement.context import model_is_int8, precision_run
from perftui.domain.measurement.figures import (
    ConfigGroup,
    Figures,
    Samples,
    figures_once,
    group_runs,
)
from perftui.domain.model.profile import SORT_KEYS, latest_profiled
from perftui.domain.records import Project, RunResult, StoredBenchmark
from perftui.domain.traffic.stored import StoredCapacity, latest_capacity
from perftui.optimize.notes import Optimization
from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape

if TYPE_CHECKING:
    from perftui.domain.model.model_info import ModelInfo
    from perftui.domain.regression.gate_stored import StoredGate

VIEWS = ("baseline", "threads", "batch", "runs", "memory")
TEXT_SORTS = {"type", "precision", "name"}


@dataclass
class DetailState:
    project: Project
    runs: list[RunResult] = field(default_factory=list)
    benchmarks: list[StoredBenchmark] = field(default_factory=list)
    """The project's stored benchmarks, oldest first (a capacity search is one)."""
    selected_id: str | None = None
    """The run under the Runs cursor; None until one is picked."""
    info: ModelInfo | None = None
    info_error: str = ""
    optimization: Optimization | None = None
    derived: list[str] = field(default_factory=list)
    """The INT8 projects made from this one."""
    chart_view: str = "threads"
    fixed_index: int = 0
    """Which value of the fixed setting (batch or threads) the chart holds."""
    curve_index: int = 0
    """How many curves on from the first shown (the capacity's) the Traffic tab is."""
    layer_sort: str = "time"
    layer_reversed: bool = False
    samples: Samples = field(default=lambda _run: None, repr=False)
    """A run's raw latencies, in the order they completed (the screen reads them from the
    store)."""
    gate: tuple[StoredGate, str] | None = None
    """The project's newest stored gate judged again, and the other side's project."""
    _figures: dict[str, Figures] = field(default_factory=dict, repr=False)

    def figures(self, run: RunResult) -> Figures:
        """The run's figures with their intervals and its verdict (a stored run never
        changes, so they are computed once per run)."""
        return figures_once(self._figures, run, self.samples)

    def labels(self) -> ConfigLabels:
        """The runs' labels, in their order: the settings that differ between them, the
        precision each ran included; the Runs table and the charts name a run by these."""
        int8 = model_is_int8(self.runs, self.project.notes)
        ran = [precision_run([run], int8) for run in self.runs]
        return config_labels([run.config for run in self.runs], ran)

    def label_of(self, run: RunResult) -> str:
        """`run`'s label among the project's runs (`labels`)."""
        found = dict(zip((r.id for r in self.runs), self.labels().labels, strict=True))
        return found.get(run.id) or short_label(run.config)

    def traffic_curves(self) -> list[TrafficCurve]:
        """The project's open-loop runs as traffic curves, one per configuration but the rate."""
        return traffic_curves(self.runs)

    def capacity(self) -> StoredCapacity | None:
        """The project's newest capacity search, the capacity computed from its runs."""
        return latest_capacity(self.benchmarks, self.runs, self.figures)

    def shown_curve(self, curves: list[TrafficCurve], capacity: StoredCapacity | None) -> int:
        """Which of `curves` the Traffic tab shows: the capacity's configuration's first
        (else the first curve), f steps on."""
        start = curve_of(curves, capacity.config) if capacity is not None else None
        return ((start or 0) + self.curve_index) % len(curves)

    def best_group(self) -> ConfigGroup | None:
        """The closed-loop configuration with the highest combined throughput (its
        repetitions combined, as the projects list's best is; one at a rate offers its
        throughput); None without a successful closed-loop run."""
        groups = [
            g
            for g in group_runs(self.runs, self.samples, self.figures)
            if g.ok_runs and g.config.rate is None
        ]
        return max(groups, key=lambda g: g.figures.throughput_fps, default=None)

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
        run: RunResult | None
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

    def flops_shapes(self) -> dict[str, tuple[int, ...]] | None:
        """The input shapes the FLOPs are computed at: those the run the layer tabs show
        (else the selected run) ran with, so FLOPs and times are of one shape; None before
        any run or where the run did not record them."""
        run = self.profiled_run()[0] or self.selected
        shapes = (run.resolved or {}).get("shapes") if run is not None else None
        if not isinstance(shapes, dict) or not shapes:
            return None
        try:
            return {str(name): tuple(int(d) for d in dims) for name, dims in shapes.items()}
        except (TypeError, ValueError):
            return None

    def baseline_combos(self) -> list[tuple[int, int]]:
        """(batch, threads) points with a successful run, in ascending order."""
        return sorted({(r.config.batch, r.config.threads) for r in ok_runs(self.runs)})

    @property
    def layers_descending(self) -> bool:
        return (self.layer_sort not in TEXT_SORTS) != self.layer_reversed

    def next_view(self) -> None:
        self.chart_view = VIEWS[(VIEWS.index(self.chart_view) + 1) % len(VIEWS)]
        self.fixed_index = 0

    def next_layer_sort(self) -> None:
        self.layer_sort = SORT_KEYS[(SORT_KEYS.index(self.layer_sort) + 1) % len(SORT_KEYS)]
        self.layer_reversed = False
