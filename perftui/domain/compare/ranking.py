"""The sweet spot: the best run under the latency and memory limits, ranked by the highest
throughput or by the lowest cost per million inferences at each run's recorded price (runs
measured without a price then take no part), the runs within noise of it, and the notes on
the memory limit. The CLI's `compare` and the compare screen rank with this one rule."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from perftui.domain.compare.sides import Side, run_latency
from perftui.domain.compare.verdicts import group_of, within_noise
from perftui.domain.measurement.cost import cost_per_million, run_cost, runs_price
from perftui.domain.measurement.figures import ConfigGroup, Samples
from perftui.domain.measurement.memory import fits_memory, mib_text
from perftui.domain.records import RunConfig, RunResult

THROUGHPUT, COST = "throughput", "cost"
RANKS = (THROUGHPUT, COST)
RANK_WORDS = {THROUGHPUT: "best throughput", COST: "lowest cost per million inferences"}
"""How a headline names each ranking."""


def rank_key(run: RunResult, rank: str) -> float | None:
    """Lower ranks first: the negated throughput, or the cost (None: the run has no cost)."""
    if rank == COST:
        return run_cost(run)
    return -run.throughput_fps


def cost_interval(group: ConfigGroup) -> tuple[float, float] | None:
    """A configuration's cost per million inferences as a 95 % interval, from its throughput's
    (None: no price, no interval, or a throughput that may be 0)."""
    price, interval = runs_price(group.ok_runs), group.figures.throughput
    if interval is None or interval.lo <= 0 or price is None:
        return None
    low, high = cost_per_million(interval.hi, price), cost_per_million(interval.lo, price)
    return None if low is None or high is None else (low, high)


def close_runs(
    best: ConfigGroup, others: Sequence[tuple[RunResult, ConfigGroup]], rank: str
) -> list[RunResult]:
    """The runs the intervals cannot tell from the best's: by throughput (a difference that
    is not significant), by cost (their cost intervals overlap)."""
    if rank == THROUGHPUT:
        return within_noise(best.figures, [(run, group.figures) for run, group in others])
    spot = cost_interval(best)
    if spot is None:
        return []
    return [
        run
        for run, group in others
        if (found := cost_interval(group)) is not None
        and found[0] <= spot[1]
        and spot[0] <= found[1]
    ]


def priced(runs: Iterable[RunResult]) -> bool:
    """Whether any of the runs has a cost (so ranking by cost can find something)."""
    return any(run_cost(run) is not None for run in runs)


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
    within_noise: tuple[Candidate, ...] = ()
    """Other runs under the threshold whose throughput is within noise of this one's: the
    sweet spot is any of them as much as it is this one."""


def sweet_spot(
    candidates: Iterable[Candidate],
    threshold_ms: float | None,
    stat: str = "median",
    max_memory_mib: float | None = None,
    rank: str = THROUGHPUT,
) -> SweetSpot | None:
    """The run with the highest throughput (`rank` COST: the lowest cost) whose latency is at
    or under the threshold (None: no latency limit) and whose memory peak is at or under
    `max_memory_mib` (None: no limit).

    Ties go to the lower latency, then to side A, then to the smaller run id, so the answer
    never depends on the order of the input. None when no run qualifies."""
    best: tuple[tuple[float, float, str, str], SweetSpot] | None = None
    for candidate in candidates:
        latency = run_latency(candidate.run, stat)
        if latency is None or (threshold_ms is not None and latency > threshold_ms):
            continue
        if not fits_memory(candidate.run, max_memory_mib):
            continue
        ranked = rank_key(candidate.run, rank)
        if ranked is None:
            continue
        key = (ranked, latency, candidate.side, candidate.run.id)
        if best is None or key < best[0]:
            best = (key, SweetSpot(candidate.side, candidate.run, latency, stat))
    return best[1] if best else None


def ranked_sweet_spot(
    a_runs: Sequence[RunResult],
    b_runs: Sequence[RunResult],
    threshold_ms: float | None,
    stat: str,
    samples: Samples,
    max_memory_mib: float | None = None,
    rank: str = THROUGHPUT,
) -> SweetSpot | None:
    """The sweet spot of A's and B's runs by `rank`, with the runs within noise of it (the
    compare screen's, and `perftui compare`'s cheapest with rank COST)."""
    candidates = [Candidate(Side.A, r) for r in a_runs] + [Candidate(Side.B, r) for r in b_runs]
    spot = sweet_spot(candidates, threshold_ms, stat, max_memory_mib, rank)
    if spot is None:
        return None
    side_runs = {Side.A: a_runs, Side.B: b_runs}
    noise = (threshold_ms, samples, max_memory_mib, rank)
    return _with_noise(spot, candidates, side_runs, *noise)


def _with_noise(
    spot: SweetSpot,
    candidates: Sequence[Candidate],
    side_runs: dict[Side, Sequence[RunResult]],
    threshold_ms: float | None,
    samples: Samples,
    max_memory_mib: float | None = None,
    rank: str = THROUGHPUT,
) -> SweetSpot:
    """The sweet spot with the other candidates under the threshold that are within noise
    of it by `rank` (each judged by its configuration's repetitions combined)."""

    def figures(candidate: Candidate) -> ConfigGroup | None:
        return group_of(candidate.run, side_runs[candidate.side], samples)

    best = figures(Candidate(spot.side, spot.run))
    if best is None:
        return spot
    seen = {_config_key(spot.side, spot.run)}
    under = []
    for c in candidates:  # one per configuration, the best's own repetitions left out
        latency = run_latency(c.run, spot.stat)
        if latency is None or (threshold_ms is not None and latency > threshold_ms):
            continue
        if not fits_memory(c.run, max_memory_mib) or _config_key(c.side, c.run) in seen:
            continue
        seen.add(_config_key(c.side, c.run))
        found = figures(c)
        if found is not None:
            under.append((c, found))
    close = {id(run) for run in close_runs(best, [(c.run, f) for c, f in under], rank)}
    found = [c for c, _ in under if id(c.run) in close]
    found.sort(key=lambda c: (c.side, -c.run.throughput_fps, c.run.id))  # not the input's order
    return replace(spot, within_noise=tuple(found))


def _config_key(side: Side, run: RunResult) -> tuple[Side, str, RunConfig]:
    return side, run.benchmark_id, run.config


def memory_picked_note(picked: str, max_memory_mib: float) -> str:
    """How the compared runs were picked, with the memory limit."""
    limit = f"with a memory peak at or under {mib_text(max_memory_mib)} MiB"
    return f"{picked}, {limit}" if picked else f"each side's fastest run {limit}"


def memory_limit_notes(
    side_runs: dict[Side, Sequence[RunResult]], names: tuple[str, str], max_memory_mib: float
) -> list[str]:
    """Notes for a side none of whose runs is known to fit the memory limit."""
    notes = []
    for side, name in zip(Side, names, strict=True):
        ok = [r for r in side_runs[side] if r.status == "ok"]
        if ok and not any(fits_memory(r, max_memory_mib) for r in ok):
            unknown = all(r.memory is None or r.memory.peak_mib is None for r in ok)
            why = "its runs' memory is unknown" if unknown else "none fits"
            notes.append(
                f"{side} ({name}) has no run with a memory peak at or under "
                f"{mib_text(max_memory_mib)} MiB ({why}): its fastest run is compared"
            )
    return notes
