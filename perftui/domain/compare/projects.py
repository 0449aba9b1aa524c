"""Two projects side by side: the sweet spot under a latency threshold, each side's compared
run, and the `Comparison` that `perftui compare` prints and the compare screens show."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from perftui.domain.compare.layers import (
    LayerPair,
    LayerTypeComparison,
    compare_layer_types,
    join_layers,
    sort_pairs,
)
from perftui.domain.compare.sides import Side, run_latency
from perftui.domain.records import Project, RunResult
from perftui.domain.summary import ProjectSummary


@dataclass(frozen=True)
class Candidate:
    """A run offered to the sweet-spot search, with the side it belongs to."""

    side: Side
    run: RunResult


@dataclass(frozen=True)
class SweetSpot:
    side: Side
    run: RunResult
    latency_ms: float
    stat: str


def sweet_spot(
    candidates: Iterable[Candidate], threshold_ms: float, stat: str = "median"
) -> SweetSpot | None:
    """The run with the highest throughput whose latency is at or under the threshold.

    Ties on throughput go to the lower latency, then to side A, then to the smaller run id,
    so the answer never depends on the order of the input. None when no run qualifies."""
    best: tuple[tuple[float, float, str, str], SweetSpot] | None = None
    for candidate in candidates:
        latency = run_latency(candidate.run, stat)
        if latency is None or latency > threshold_ms:
            continue
        key = (-candidate.run.throughput_fps, latency, candidate.side, candidate.run.id)
        if best is None or key < best[0]:
            best = (key, SweetSpot(candidate.side, candidate.run, latency, stat))
    return best[1] if best else None


def pick_run(
    runs: Sequence[RunResult], threshold_ms: float | None, stat: str, pinned: str | None = None
) -> RunResult | None:
    """A side's representative run: the pinned run (by id) when it is among the successful
    runs, else its own sweet spot under the threshold, else (no run under it, or no
    threshold) its highest-throughput successful run."""
    ok = [r for r in runs if run_latency(r, stat) is not None]
    if pinned is not None:
        found = next((r for r in ok if r.id == pinned), None)
        if found is not None:
            return found
    if threshold_ms is not None:
        spot = sweet_spot((Candidate(Side.A, r) for r in ok), threshold_ms, stat)
        if spot is not None:
            return spot.run
    return max(ok, key=lambda r: (r.throughput_fps, r.id), default=None)


@dataclass(frozen=True)
class Comparison:
    a_name: str
    b_name: str
    a: RunResult | None
    b: RunResult | None
    threshold_ms: float | None
    stat: str
    sweet: SweetSpot | None
    layer_types: list[LayerTypeComparison]
    layers: list[LayerPair]
    notes: list[str]

    def name(self, side: Side) -> str:
        return self.a_name if side is Side.A else self.b_name

    def run(self, side: Side) -> RunResult | None:
        """The side's compared run (None when it has no successful run)."""
        return self.a if side is Side.A else self.b


def compare_projects(
    a_name: str,
    a_runs: Sequence[RunResult],
    b_name: str,
    b_runs: Sequence[RunResult],
    threshold_ms: float | None = None,
    stat: str = "median",
    a_pinned: str | None = None,
    b_pinned: str | None = None,
) -> Comparison:
    """Everything `perftui compare` and the compare screen show, from the selected runs.

    A pinned run id makes that run its side's compared run; the sweet spot never depends on
    pins (it is searched among all the given runs)."""
    candidates = [Candidate(Side.A, r) for r in a_runs] + [Candidate(Side.B, r) for r in b_runs]
    sweet = sweet_spot(candidates, threshold_ms, stat) if threshold_ms is not None else None
    a = pick_run(a_runs, threshold_ms, stat, a_pinned)
    b = pick_run(b_runs, threshold_ms, stat, b_pinned)
    notes = []
    if threshold_ms is not None and sweet is None:
        notes.append(f"no selected run has a {stat} latency at or under {threshold_ms:g} ms")
    for side, name, run in zip(Side, (a_name, b_name), (a, b), strict=True):
        if run is None:
            notes.append(f"{side} ({name}) has no successful run to compare")
        elif not run.layers:
            notes.append(
                f"{side} ({name}): the compared run has no layer profile; benchmark it again "
                "with per-layer profiling (`perftui bench ... --profile`) to compare layers"
            )
    layers_a = list(a.layers or ()) if a else []
    layers_b = list(b.layers or ()) if b else []
    profiled = bool(layers_a and layers_b)
    return Comparison(
        a_name=a_name,
        b_name=b_name,
        a=a,
        b=b,
        threshold_ms=threshold_ms,
        stat=stat,
        sweet=sweet,
        layer_types=compare_layer_types(layers_a, layers_b) if profiled else [],
        layers=sort_pairs(join_layers(layers_a, layers_b)) if profiled else [],
        notes=notes,
    )


def default_projects(
    summaries: Sequence[tuple[Project, ProjectSummary]],
) -> tuple[str | None, str | None]:
    """(A, B) to compare when nobody chose: B is the project with the best throughput (as the
    Workbench does); A is the project B was optimized from when it exists, else the next
    best project with successful runs, else the first other project by name."""
    if not summaries:
        return None, None
    names = [project.name for project, _ in summaries]
    measured = [(s.best_throughput_fps, p.name) for p, s in summaries if s.best_throughput_fps]
    measured.sort(key=lambda item: (-(item[0] or 0.0), item[1]))
    b = measured[0][1] if measured else names[0]
    source = next((p.source_project for p, _ in summaries if p.name == b), None)
    if source in names and source != b:
        return source, b
    others = [name for _, name in measured if name != b] + [n for n in names if n != b]
    return (others[0] if others else None), b


def default_threshold(runs: Iterable[RunResult], stat: str = "median") -> float | None:
    """A starting threshold every given successful run meets: the highest latency rounded up
    to two significant digits (10.11 -> 11, 3.95 -> 4). None without a successful run."""
    values = [v for r in runs if (v := run_latency(r, stat)) is not None]
    if not values:
        return None
    top = max(values)
    if top <= 0:
        return 1.0
    step = 10.0 ** (math.floor(math.log10(top)) - 1)
    return round(math.ceil(top / step - 1e-9) * step, 9)
