"""What the compare screens remember: per side the project, its runs, the checked ones and
the pinned one; the threshold and statistic; the summary's sorts, filters and inclusions.

No textual here: the screens own these objects, change them on keys and redraw from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perftui.domain.compare import (
    LAYER_SORT_KEYS,
    METRICS,
    TYPE_SORT_KEYS,
    Comparison,
    LayerPair,
    Side,
    compare_projects,
    filter_pairs,
    parse_min_delta,
    run_latency,
    sort_pairs,
)
from perftui.domain.compare.capacity import CapacityRatio, both_capacities
from perftui.domain.compare.ranking import RANK_WORDS, RANKS, THROUGHPUT, priced
from perftui.domain.errors import InputError
from perftui.domain.forms.options import parse_threshold
from perftui.domain.limits import parse_memory_limit
from perftui.domain.measurement.figures import Figures, Samples, figures_once, run_figures
from perftui.domain.records import RunResult, StoredBenchmark
from perftui.domain.traffic.stored import latest_capacity


def _next(keys: tuple[str, ...], current: str) -> str:
    return keys[(keys.index(current) + 1) % len(keys)]


@dataclass
class SideRuns:
    """One side of the setup: its project, runs, the checked runs and the pinned one."""

    name: str | None = None
    runs: list[RunResult] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)
    pinned: str | None = None
    unreadable: bool = False
    """Whether its runs could not be read (the database is damaged): not "no runs"."""

    def ok_ids(self, stat: str) -> set[str]:
        return {r.id for r in self.runs if run_latency(r, stat) is not None}

    def load(self, runs: list[RunResult] | None, stat: str) -> None:
        """New runs (None: they could not be read): every successful one checked, no pin."""
        self.runs, self.pinned, self.unreadable = runs or [], None, runs is None
        self.checked = self.ok_ids(stat)

    def reload(self, runs: list[RunResult] | None, stat: str) -> None:
        """The same project's runs again: new ones come in checked, the rest keep their check
        boxes and the pin."""
        known = {r.id for r in self.runs}
        checked, pinned = self.checked, self.pinned
        self.load(runs, stat)
        ids = {r.id for r in self.runs}
        self.checked = (checked & ids) | (self.checked - known)
        self.pinned = pinned if pinned in self.checked else None

    def selected(self) -> list[RunResult]:
        return [r for r in self.runs if r.id in self.checked]

    def find(self, run_id: str) -> RunResult | None:
        return next((r for r in self.runs if r.id == run_id), None)

    def toggle(self, run_id: str) -> None:
        """Check or uncheck a run; an unchecked run is no longer pinned."""
        self.checked ^= {run_id}
        if run_id not in self.checked and self.pinned == run_id:
            self.pinned = None

    def check_all(self, stat: str) -> None:
        """Check every successful run, or none when they all are."""
        ok = self.ok_ids(stat)
        self.checked = set() if self.checked >= ok else ok
        if self.pinned not in self.checked:
            self.pinned = None

    def pin(self, run_id: str) -> bool:
        """Pin a run (checking it), or unpin it when it is pinned; True when pinned."""
        if self.pinned == run_id:
            self.pinned = None
            return False
        self.pinned = run_id
        self.checked.add(run_id)
        return True


@dataclass
class SetupState:
    """The compare setup: both sides, the latency threshold and statistic."""

    sides: dict[Side, SideRuns] = field(default_factory=lambda: {s: SideRuns() for s in Side})
    stat: str = "median"
    threshold: float | None = None
    threshold_error: str | None = None
    """Why the typed threshold cannot be used (no sweet spot until it is fixed)."""
    max_memory: float | None = None
    """The memory limit in MiB (None: no limit), as `compare --max-memory`."""
    memory_error: str | None = None
    """Why the typed memory limit cannot be used (no limit until it is fixed)."""
    rank: str = THROUGHPUT
    """What the sweet spot ranks by, as chosen (perftui.domain.compare.ranking)."""
    samples: Samples = field(default=lambda _run: None, repr=False)
    """A run's raw latencies (the screen reads them from the store), for latency intervals."""
    _figures: dict[str, Figures] = field(default_factory=dict, repr=False)

    def figures(self, run: RunResult) -> Figures:
        """A run's figures with their intervals and its verdict, computed once per run."""
        return figures_once(self._figures, run, self.samples)

    def names(self) -> dict[Side, str | None]:
        return {side: runs.name for side, runs in self.sides.items()}

    def all_runs(self) -> list[RunResult]:
        return [run for side in Side for run in self.sides[side].runs]

    def priced(self) -> bool:
        """Whether any run of either side has a cost (ranking by cost is offered)."""
        return priced(self.all_runs())

    def ranking(self) -> str:
        """The ranking in use: the chosen one, by throughput while no run has a cost."""
        return self.rank if self.priced() else THROUGHPUT

    def next_rank(self) -> None:
        self.rank = _next(RANKS, self.ranking())

    def swap(self) -> None:
        self.sides = {Side.A: self.sides[Side.B], Side.B: self.sides[Side.A]}

    def type_threshold(self, text: str) -> None:
        """The threshold as typed; a bad value keeps the last good one and says why."""
        if not str(text).strip():
            self.threshold_error = (
                "latency threshold is empty; give milliseconds, e.g. 5, to find the sweet spot"
            )
            return
        try:
            self.threshold, self.threshold_error = parse_threshold(text), None
        except InputError as error:
            self.threshold_error = str(error)

    def type_memory(self, text: str) -> None:
        """The memory limit as typed (empty: none); a bad value means no limit, said why."""
        try:
            limit = parse_memory_limit(text) if str(text).strip() else None
            self.max_memory, self.memory_error = limit, None
        except InputError as error:
            self.max_memory, self.memory_error = None, str(error)

    def limits_note(self) -> tuple[str, bool]:
        """The line under the controls: what is wrong with a limit (True), else what the
        limits find."""
        if self.threshold_error is not None:
            return f"{self.threshold_error} (no sweet spot until it is fixed)", True
        if self.memory_error is not None:
            return f"{self.memory_error} (no memory limit until it is fixed)", True
        if self.threshold is None:
            return "", False
        memory = f", memory ≤ {self.max_memory:g} MiB" if self.max_memory is not None else ""
        return (
            f"sweet spot: {RANK_WORDS[self.ranking()]} at {self.stat} latency ≤"
            f" {self.threshold:g} ms"
            f"{memory} · c compares A and B",
            False,
        )

    def compare(self) -> Comparison | None:
        """The comparison of the checked runs (None until two different projects are chosen)."""
        a, b = self.sides[Side.A], self.sides[Side.B]
        if a.name is None or b.name is None or a.name == b.name:
            return None
        return compare_projects(
            a.name,
            a.selected(),
            b.name,
            b.selected(),
            self.threshold if self.threshold_error is None else None,
            self.stat,
            a_pinned=a.pinned,
            b_pinned=b.pinned,
            samples=self.samples,
            max_memory_mib=self.max_memory,
            rank=self.ranking(),
            known=self.figures,
        )


@dataclass
class SummaryState:
    """The Model Performance Summary: its sorts, the layer types in the distribution, the
    inference metric and the kernel-level filter."""

    comparison: Comparison
    type_sort: str = "a_time"
    type_descending: bool | None = None
    """None: the sort key's natural order (names ascend, figures descend)."""
    included: set[str] = field(default_factory=set)
    metric: str = "throughput"
    layer_sort: str = "delta"
    layer_reversed: bool = False
    min_delta: float = 0.0
    delta_error: str | None = None
    samples: Samples = field(default=lambda _run: None, repr=False)
    """A run's raw latencies, for the latency distribution (the screen reads the store)."""
    stored: dict[Side, tuple[list[StoredBenchmark], list[RunResult]]] = field(default_factory=dict)
    """Each side's project's benchmarks and runs as stored (the screen reads them): where
    their capacity searches are."""

    def __post_init__(self) -> None:
        self.included = {
            r.type
            for r in self.comparison.layer_types
            if (r.a and r.a.time_ms > 0) or (r.b and r.b.time_ms > 0)
        }

    @property
    def types_descending(self) -> bool:
        if self.type_descending is None:
            return self.type_sort != "type"
        return self.type_descending

    def next_type_sort(self) -> None:
        self.type_sort, self.type_descending = _next(TYPE_SORT_KEYS, self.type_sort), None

    def reverse_types(self) -> None:
        self.type_descending = not self.types_descending

    def toggle_type(self, layer_type: str) -> None:
        self.included ^= {layer_type}

    def include_all(self) -> None:
        """All layer types in the distribution, or none when they all are."""
        everything = {r.type for r in self.comparison.layer_types}
        self.included = set() if self.included >= everything else everything

    def next_metric(self) -> None:
        self.metric = _next(METRICS, self.metric)

    def next_layer_sort(self) -> None:
        self.layer_sort, self.layer_reversed = _next(LAYER_SORT_KEYS, self.layer_sort), False

    def reverse_layers(self) -> None:
        self.layer_reversed = not self.layer_reversed

    def set_min_delta(self, text: str) -> None:
        """The kernel-level filter as typed; a bad value keeps the last good one."""
        try:
            self.min_delta, self.delta_error = parse_min_delta(text), None
        except InputError as error:
            self.delta_error = str(error)

    def shown_pairs(self) -> list[LayerPair]:
        """The kernel-level rows: the pairs that changed at least the filter, sorted."""
        kept = filter_pairs(self.comparison.layers, self.min_delta)
        return sort_pairs(kept, self.layer_sort, self.layer_reversed)

    def capacity(self) -> CapacityRatio | None:
        """Both projects' newest capacities and B/A (or why none), as `perftui compare`
        gives them; None unless both have one."""
        if set(self.stored) != set(Side):
            return None
        found = [
            latest_capacity(*self.stored[side], lambda run: run_figures(run, self.samples(run)))
            for side in Side
        ]
        return both_capacities(found[0], found[1])
