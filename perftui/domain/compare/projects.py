"""Two projects side by side: the sweet spot under a latency threshold, each side's compared
run, and the `Comparison` that `perftui compare` prints and the compare screens show."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from perftui.domain.compare.layers import (
    LayerPair,
    LayerTypeComparison,
    compare_layer_types,
    join_layers,
    sort_pairs,
)
from perftui.domain.compare.pairing import (
    Paired,
    latest_alternation,
    latest_paired,
    paired_differences,
    paired_note,
    paired_runs,
)
from perftui.domain.compare.ranking import (
    COST,
    THROUGHPUT,
    Candidate,
    SweetSpot,
    candidates,
    closed_loop_only,
    memory_limit_notes,
    memory_picked_note,
    spot_with_noise,
    sweet_spot,
)
from perftui.domain.compare.settings import settings_note, unlike_loads
from perftui.domain.compare.sides import Side, run_latency
from perftui.domain.compare.verdicts import (
    MEASURE_AGAIN,
    Difference,
    difference,
    profile_contradiction,
    single_runs,
)
from perftui.domain.measurement.context import (
    LOWER_PRECISIONS,
    UNSAID,
    coverage_note,
    model_is_int8,
    ran_precision,
    run_isa,
)
from perftui.domain.measurement.figures import ConfigGroup, Known, Samples
from perftui.domain.measurement.memory import MemoryRatio, memory_ratio
from perftui.domain.measurement.summary import ProjectSummary
from perftui.domain.records import Project, RunConfig, RunResult
from perftui.domain.regression.gate_stored import gate_notes


def pick_run(
    runs: Sequence[RunResult],
    threshold_ms: float | None,
    stat: str,
    pinned: str | None = None,
    max_memory_mib: float | None = None,
    rank: str = THROUGHPUT,
) -> RunResult | None:
    """A side's representative run: the pinned run (by id) when it is among the successful
    runs, else the run that stands for its own sweet spot under the limits by `rank`, else
    (no configuration under them, or no limit) for its highest combined throughput; only
    closed-loop configurations are picked (None when it has none: `ranking.closed_loop_only`)."""
    return _pick(candidates(Side.A, runs), runs, threshold_ms, stat, pinned, max_memory_mib, rank)


def _pick(
    found: Sequence[Candidate],
    runs: Sequence[RunResult],
    threshold_ms: float | None,
    stat: str,
    pinned: str | None,
    max_memory_mib: float | None,
    rank: str,
) -> RunResult | None:
    """`pick_run` among a side's configurations, `found`."""
    if pinned is not None:
        run = next((r for r in runs if r.id == pinned and run_latency(r, stat) is not None), None)
        if run is not None:
            return run
    if threshold_ms is not None or max_memory_mib is not None:
        spot = sweet_spot(found, threshold_ms, stat, max_memory_mib, rank)
        if spot is not None:
            return spot.run
    measured = [c for c in closed_loop_only(found) if c.latency_ms(stat) is not None]
    best = max(measured, key=lambda c: (c.throughput_fps, c.run.id), default=None)
    return None if best is None else best.run


def _group(run: RunResult | None, found: Sequence[Candidate]) -> ConfigGroup | None:
    """The configuration `run` is a repetition of, among `found`."""
    if run is None:
        return None
    return next((c.group for c in found if any(r is run for r in c.group.runs)), None)


def _any_under(runs: Sequence[RunResult], threshold_ms: float, stat: str) -> bool:
    """Whether a closed-loop run is at or under the threshold (those at a rate are not
    ranked, so one under it is never the one compared)."""
    return any(
        (v := run_latency(r, stat)) is not None and v <= threshold_ms and r.config.rate is None
        for r in runs
    )


def _closed_loop(runs: Sequence[RunResult], stat: str) -> bool:
    return any(r.config.rate is None and run_latency(r, stat) is not None for r in runs)


def _same_load(
    a_pinned: str | None,
    a_runs: Sequence[RunResult],
    b_pinned: str | None,
    b_runs: Sequence[RunResult],
    stat: str,
) -> tuple[str | None, str | None]:
    """With one side's run pinned at a rate, the other side's newest run of the same
    configuration where it has one: an open-loop figure compares only at its own rate."""
    pinned, runs, others = (a_pinned, a_runs, b_runs) if a_pinned else (b_pinned, b_runs, a_runs)
    run = next((r for r in runs if r.id == pinned), None)
    if run is None or run.config.rate is None:
        return a_pinned, b_pinned
    same = [r for r in others if r.config == run.config and run_latency(r, stat) is not None]
    match = max(same, key=lambda r: r.started_at, default=None)
    if match is None:
        return a_pinned, b_pinned
    return (a_pinned, match.id) if a_pinned else (match.id, b_pinned)


NONE_SHARED = "no configuration was measured on both sides: each side's fastest configuration"


def like_for_like(
    a_runs: Sequence[RunResult],
    b_runs: Sequence[RunResult],
    stat: str,
    known: Known = lambda _run: None,
) -> tuple[str | None, str | None, str]:
    """Without a threshold, each side's run of the same configuration: of those measured on
    both sides, the one A ran fastest (its fastest run on each side), and the note that says
    so; (None, None, note) when no configuration was measured on both (each side's fastest
    run is then compared, and the settings note names what differs)."""
    ok_a = [r for r in a_runs if run_latency(r, stat) is not None]
    ok_b = [r for r in b_runs if run_latency(r, stat) is not None]
    if not ok_a or not ok_b:
        return None, None, ""
    found = shared_pair(ok_a, ok_b, stat, known)
    if found is None:
        return None, None, NONE_SHARED
    best_a, best_b = found
    shared = {r.config for r in ok_a} & {r.config for r in ok_b}
    return (
        best_a.id,
        best_b.id,
        (
            f"like for like: the same configuration on both sides ({best_a.config.label()}),"
            f" A's fastest of the {len(shared)} measured on both"
        ),
    )


def shared_pair(
    a_runs: Sequence[RunResult],
    b_runs: Sequence[RunResult],
    stat: str = "median",
    known: Known = lambda _run: None,
) -> tuple[RunResult, RunResult] | None:
    """Of the configurations measured on both sides, the one with A's highest combined
    throughput: the run that stands for it on each side (of its benchmark with the highest
    combined throughput there); None when no configuration was measured on both. Closed-loop
    configurations come first; only where none is shared, one at a rate (the highest).
    `known`: a run's figures where already known (the store's), not computed again."""
    found = [
        [c for c in candidates(side, runs, known=known) if c.latency_ms(stat) is not None]
        for side, runs in zip(Side, (a_runs, b_runs), strict=True)
    ]
    shared = {c.group.config for c in found[0]} & {c.group.config for c in found[1]}
    if not shared:
        return None
    chosen = {config for config in shared if config.rate is None}
    if not chosen:
        rate = max(config.rate or 0.0 for config in shared)
        chosen = {config for config in shared if config.rate == rate}

    def fastest(side: Sequence[Candidate], configs: set[RunConfig]) -> Candidate:
        return max(
            (c for c in side if c.group.config in configs),
            key=lambda c: (c.throughput_fps, c.run.id),
        )

    best_a = fastest(found[0], chosen)
    return best_a.run, fastest(found[1], {best_a.group.config}).run


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
    throughput: Difference | None = None
    """B/A throughput with its interval and verdict (None without a run on both sides)."""
    latency: Difference | None = None
    """B/A of the `stat` latency, likewise."""
    groups: tuple[ConfigGroup | None, ConfigGroup | None] = (None, None)
    """A's and B's compared run with its repetitions, their figures combined."""
    measurement_notes: tuple[str, ...] = ()
    """The notes (among `notes`) on what the measurement can claim: single runs per side,
    a profile that contradicts the measurement."""
    settings_note: str | None = None
    """Which settings the compared runs differ in (also among `notes`); None when alike."""
    paired_rounds: int = 0
    """Rounds of A and B measured alternately that B/A was judged from (0: judged from each
    side's figures; perftui.domain.compare.pairing)."""
    max_memory_mib: float | None = None
    """The sweet spot's memory limit, beside the latency threshold (None: none)."""
    rank: str = THROUGHPUT
    """What the sweet spot ranks by (perftui.domain.compare.ranking)."""
    alternated: Paired | None = None
    """Where B/A above was judged from runs measured apart: the verdict of the latest
    measurement of the compared configurations alternately (`M`, `compare --measure`)."""
    unlike: str | None = None
    """Why B/A is not given: the compared runs ran at different loads (a rate and a closed
    loop, or two rates; also among `notes`); None when they ran at the same load."""

    @property
    def memory(self) -> MemoryRatio | None:
        """B/A of the compared configurations' timed-window memory peaks."""
        a, b = self.groups
        if a is None or b is None:
            return None
        return memory_ratio((r.memory for r in a.ok_runs), (r.memory for r in b.ok_runs))

    @property
    def profiled(self) -> bool:
        """Whether both compared runs have a per-layer profile (the layers can be compared)."""
        return all(run is not None and run.layers for run in (self.a, self.b))

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
    samples: Samples = lambda _run: None,
    max_memory_mib: float | None = None,
    rank: str = THROUGHPUT,
    known: Known = lambda _run: None,
) -> Comparison:
    """Everything `perftui compare` and the compare screen show, from the selected runs.

    A pinned run id makes that run its side's compared run; the sweet spot never depends on
    pins (it is searched among all the given runs). With no pins and no threshold, the
    latest measurement of A and B alternated (`compare --measure`) is compared, if any.
    `samples` gives a run's raw latencies, for the latency intervals (`known`: a run's
    figures where already known); `rank`: what the sweet spot and each side's pick rank
    by. Both rank configurations, their repetitions combined."""
    limited = threshold_ms is not None or max_memory_mib is not None
    offered = {
        side: candidates(side, runs, samples, known)
        for side, runs in zip(Side, (a_runs, b_runs), strict=True)
    }
    sweet = None
    if limited:
        both = offered[Side.A] + offered[Side.B]
        sweet = spot_with_noise(both, threshold_ms, stat, max_memory_mib, rank)
    side_runs = {Side.A: a_runs, Side.B: b_runs}
    picked = ""
    if not limited and a_pinned is None and b_pinned is None:
        a_pinned, b_pinned = latest_alternation(a_runs, b_runs) or (None, None)
        if a_pinned is None:
            a_pinned, b_pinned, picked = like_for_like(a_runs, b_runs, stat, known)
    elif threshold_ms is not None and a_pinned is None and b_pinned is None:
        best = "cheapest" if rank == COST else "fastest"
        picked = f"each side's {best} configuration at or under {threshold_ms:g} ms ({stat})"
    if max_memory_mib is not None and a_pinned is None and b_pinned is None:
        picked = memory_picked_note(picked, max_memory_mib)
    if (a_pinned is None) != (b_pinned is None):
        a_pinned, b_pinned = _same_load(a_pinned, a_runs, b_pinned, b_runs, stat)
    limits = (threshold_ms, stat)
    a = _pick(offered[Side.A], a_runs, *limits, a_pinned, max_memory_mib, rank)
    b = _pick(offered[Side.B], b_runs, *limits, b_pinned, max_memory_mib, rank)
    groups = (_group(a, offered[Side.A]), _group(b, offered[Side.B]))
    fig_a, fig_b = (g.figures if g else None for g in groups)
    throughput = latency = None
    pairs: list[tuple[RunResult, RunResult]] = []
    notes = []
    differs: str | None = None
    unlike = unlike_loads(a, b, ((a_name, a_runs), (b_name, b_runs))) if a and b else None
    if unlike:
        notes.append(unlike)
    elif fig_a is not None and fig_b is not None:
        pairs = paired_runs(*groups)
        if pairs:
            throughput, latency = paired_differences(pairs, stat)
            notes.append(paired_note(pairs))
            notes += gate_notes(pairs[0][0], a_name, a_runs, b_name, b_runs)
        else:
            throughput = difference("throughput", fig_a.throughput, fig_b.throughput)
            latency = difference(stat, fig_a.latency.get(stat), fig_b.latency.get(stat))
            single = [
                f"{side} ({name})"
                for side, name, g in zip(Side, (a_name, b_name), groups, strict=True)
                if g is not None and len(g.ok_runs) < 2
            ]
            if single:
                notes.append(single_runs(single))
        differs = settings_note(a, b) if a is not None and b is not None else None
        if differs:
            notes.append(differs)
        contradiction = profile_contradiction(a, b, throughput)
        if contradiction:
            notes.append(contradiction)
    if picked:
        notes.append(picked)
    measurement_notes = tuple(notes)
    if threshold_ms is not None:
        notes += [
            f"{side} ({name}) has no run at or under {threshold_ms:g} ms ({stat}): its"
            " fastest configuration is compared"
            for side, name, runs in ((Side.A, a_name, a_runs), (Side.B, b_name, b_runs))
            if _closed_loop(runs, stat) and not _any_under(runs, threshold_ms, stat)
        ]
    if threshold_ms is not None and sweet is None:
        which = "closed-loop run" if any(r.config.rate for r in (*a_runs, *b_runs)) else "run"
        notes.append(f"no selected {which} has a {stat} latency at or under {threshold_ms:g} ms")
    if max_memory_mib is not None:
        notes += memory_limit_notes(side_runs, (a_name, b_name), max_memory_mib)
    for side, name, run in zip(Side, (a_name, b_name), (a, b), strict=True):
        if run is not None and model_is_int8([run], {}):
            found = coverage_note(run, run_isa(run))
            notes += [f"{side} ({name}): {found}"] if found else []
        ran = ran_precision(run) if run is not None else UNSAID
        if run is not None and run.config.precision is None and ran in LOWER_PRECISIONS:
            notes.append(
                f"{side} ({name}) ran in {ran}, the engine's default on this CPU, not f32: B/A"
                f" is against {ran}; measure with precision f32 for FP32 figures"
            )
        if run is None:
            notes.append(_none_compared(side, name, side_runs[side]))
        elif not run.layers:
            notes.append(
                f"{side} ({name}): the compared run has no layer profile; benchmark it again "
                "with per-layer profiling (`perftui bench ... --profile`) to compare layers"
            )
    layers_a = list(a.layers or ()) if a else []
    layers_b = list(b.layers or ()) if b else []
    profiled = bool(layers_a and layers_b)
    comparison = Comparison(
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
        throughput=throughput,
        latency=latency,
        groups=groups,
        measurement_notes=measurement_notes,
        settings_note=differs,
        paired_rounds=len(pairs),
        max_memory_mib=max_memory_mib,
        rank=rank,
        unlike=unlike,
    )
    return with_alternated(comparison, a_runs, b_runs)


def _none_compared(side: Side, name: str, runs: Sequence[RunResult]) -> str:
    """Why a side has no compared run: none succeeded, or all ran at a rate (not ranked)."""
    if any(r.status == "ok" and r.config.rate is not None for r in runs):
        return (
            f"{side} ({name}) has no closed-loop run to compare (its runs ran at a rate: pin"
            " one to compare at that rate)"
        )
    return f"{side} ({name}) has no successful run to compare"


def with_alternated(
    c: Comparison, a_runs: Sequence[RunResult], b_runs: Sequence[RunResult]
) -> Comparison:
    """`c` with the latest alternated measurement of its compared configurations among the
    runs, where its own B/A was judged from runs measured apart; the advice to measure them
    so is then dropped."""
    if c.paired_rounds or c.a is None or c.b is None or c.unlike:
        return c
    found = latest_paired(a_runs, b_runs, c.a, c.b, c.stat)
    if found is None:
        return c
    notes = [note for note in c.notes if not note.endswith(MEASURE_AGAIN)]
    kept = tuple(note for note in c.measurement_notes if not note.endswith(MEASURE_AGAIN))
    return replace(c, alternated=found, notes=notes, measurement_notes=kept)


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
