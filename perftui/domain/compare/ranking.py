"""The sweet spot: the best configuration under the latency and memory limits, its
repetitions combined (domain.measurement.figures.group_runs, as the projects list combines
them), ranked by the highest throughput or by the lowest cost per million inferences at its
runs' recorded price (configurations measured without a price then take no part), those
within noise of it, and the notes on the memory limit. The CLI's `compare`, the compare
screen and the report rank with this one rule."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from perftui.domain.compare.sides import Side
from perftui.domain.compare.verdicts import within_noise
from perftui.domain.measurement.cost import (
    cost_per_million,
    cost_text,
    group_cost,
    run_cost,
    runs_price,
)
from perftui.domain.measurement.figures import ConfigGroup, Known, Samples, group_runs
from perftui.domain.measurement.memory import fits_memory, mib_text
from perftui.domain.measurement.statistic import LATENCY_NAMES
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.records import RunResult

THROUGHPUT, COST = "throughput", "cost"
RANKS = (THROUGHPUT, COST)
RANK_WORDS = {THROUGHPUT: "best throughput", COST: "lowest cost per million inferences"}
"""How a headline names each ranking."""


def _none(_run: RunResult) -> None:
    return None


@dataclass(frozen=True)
class Candidate:
    """A configuration offered to the sweet-spot search, with its side: one benchmark's runs
    of it, their figures combined (domain.measurement.figures.group_runs, as the projects
    list combines them), never one lucky repetition's."""

    side: Side
    group: ConfigGroup

    @property
    def run(self) -> RunResult:
        """The run that stands for the configuration (its first successful repetition):
        the one a chart or a table marks."""
        return (self.group.ok_runs or self.group.runs)[0]

    @property
    def throughput(self) -> Interval | None:
        return self.group.figures.throughput

    @property
    def throughput_fps(self) -> float:
        return self.group.figures.throughput_fps

    @property
    def cost(self) -> float | None:
        """Cost per million inferences at the configuration's combined throughput."""
        return group_cost(self.group)

    def latency_ms(self, stat: str) -> float | None:
        """The configuration's `stat` latency: its successful repetitions' mean."""
        return self.group.latency_ms(stat)

    def latency(self, stat: str) -> Interval | None:
        return self.group.figures.latency.get(stat)

    @property
    def closed_loop(self) -> bool:
        """Whether it ran closed-loop (no rate). Only such configurations are ranked: an
        open-loop run's throughput is the rate it was offered and its latency counts the
        queueing at that rate, so neither says how fast the configuration can go."""
        return self.group.config.rate is None


def closed_loop_only(found: Iterable[Candidate]) -> list[Candidate]:
    """The candidates a ranking considers: the closed-loop ones (`Candidate.closed_loop`)."""
    return [c for c in found if c.closed_loop]


def candidates(
    side: Side, runs: Sequence[RunResult], samples: Samples = _none, known: Known = _none
) -> list[Candidate]:
    """The side's configurations with a successful run, their repetitions combined."""
    return [Candidate(side, g) for g in group_runs(runs, samples, known) if g.ok_runs]


def rank_key(candidate: Candidate, rank: str) -> float | None:
    """Lower ranks first: the negated throughput, or the cost (None: it has no cost)."""
    if rank == COST:
        return candidate.cost
    return -candidate.throughput_fps


def cost_interval(group: ConfigGroup) -> tuple[float, float] | None:
    """A configuration's cost per million inferences as a 95 % interval, from its throughput's
    (None: no price, no interval, or a throughput that may be 0)."""
    price, interval = runs_price(group.ok_runs), group.figures.throughput
    if interval is None or interval.lo <= 0 or price is None:
        return None
    low, high = cost_per_million(interval.hi, price), cost_per_million(interval.lo, price)
    return None if low is None or high is None else (low, high)


def cost_with_interval(found: Candidate) -> str:
    """'0.0926 (0.0917-0.0935)': a configuration's cost per million inferences with its
    interval, as every front end writes it."""
    interval = cost_interval(found.group)
    around = f" ({cost_text(interval[0])}-{cost_text(interval[1])})" if interval else ""
    return cost_text(found.cost) + around


def close_candidates(best: Candidate, others: Sequence[Candidate], rank: str) -> list[Candidate]:
    """The configurations the intervals cannot tell from the best's: by throughput (a
    difference that is not significant), by cost (their cost intervals overlap)."""
    if rank == THROUGHPUT:
        return within_noise(best.group.figures, [(c, c.group.figures) for c in others])
    spot = cost_interval(best.group)
    if spot is None:
        return []
    return [
        c
        for c in others
        if (found := cost_interval(c.group)) is not None
        and found[0] <= spot[1]
        and spot[0] <= found[1]
    ]


def priced(runs: Iterable[RunResult]) -> bool:
    """Whether any of the runs has a cost (so ranking by cost can find something)."""
    return any(run_cost(run) is not None for run in runs)


@dataclass(frozen=True)
class SweetSpot:
    """The best configuration under the limits, its repetitions combined."""

    best: Candidate
    latency_ms: float
    """Its `stat` latency, the repetitions' mean: the figure held to the threshold."""
    stat: str
    within_noise: tuple[Candidate, ...] = ()
    """The other configurations under the limits that the intervals cannot tell from this
    one: the sweet spot is any of them as much as it is this one."""

    @property
    def side(self) -> Side:
        return self.best.side

    @property
    def run(self) -> RunResult:
        return self.best.run

    @property
    def group(self) -> ConfigGroup:
        return self.best.group

    @property
    def throughput_fps(self) -> float:
        return self.best.throughput_fps

    @property
    def throughput(self) -> Interval | None:
        return self.best.throughput

    @property
    def latency(self) -> Interval | None:
        """The interval of `latency_ms`."""
        return self.best.latency(self.stat)

    @property
    def cost(self) -> float | None:
        return self.best.cost


def _fits(
    candidate: Candidate, threshold_ms: float | None, stat: str, max_memory_mib: float | None
) -> float | None:
    """The candidate's `stat` latency when it is at or under the threshold (None: no
    limit) and each successful repetition's memory peak at or under `max_memory_mib`;
    None when it does not fit."""
    latency = candidate.latency_ms(stat)
    if latency is None or (threshold_ms is not None and latency > threshold_ms):
        return None
    if not all(fits_memory(run, max_memory_mib) for run in candidate.group.ok_runs):
        return None
    return latency


def sweet_spot(
    found: Iterable[Candidate],
    threshold_ms: float | None,
    stat: str = "median",
    max_memory_mib: float | None = None,
    rank: str = THROUGHPUT,
) -> SweetSpot | None:
    """The closed-loop configuration with the highest combined throughput (`rank` COST: the
    lowest cost) whose combined latency is at or under the threshold (None: no latency
    limit) and that fits `max_memory_mib` (None: no limit).

    Ties go to the lower latency, then to side A, then to the smaller run id, so the answer
    never depends on the order of the input. None when no configuration qualifies."""
    if stat not in LATENCY_NAMES:
        raise ValueError(f"unknown latency statistic {stat!r}; one of {', '.join(LATENCY_NAMES)}")
    best: tuple[tuple[float, float, str, str], SweetSpot] | None = None
    for candidate in closed_loop_only(found):
        latency = _fits(candidate, threshold_ms, stat, max_memory_mib)
        ranked = rank_key(candidate, rank) if latency is not None else None
        if latency is None or ranked is None:
            continue
        key = (ranked, latency, candidate.side, candidate.run.id)
        if best is None or key < best[0]:
            best = (key, SweetSpot(candidate, latency, stat))
    return best[1] if best else None


def ranked_sweet_spot(
    a_runs: Sequence[RunResult],
    b_runs: Sequence[RunResult],
    threshold_ms: float | None,
    stat: str,
    samples: Samples,
    max_memory_mib: float | None = None,
    rank: str = THROUGHPUT,
    known: Known = _none,
) -> SweetSpot | None:
    """The sweet spot of A's and B's configurations by `rank` (`perftui compare`'s cheapest
    with rank COST), with the configurations within noise of it."""
    found = candidates(Side.A, a_runs, samples, known) + candidates(Side.B, b_runs, samples, known)
    return spot_with_noise(found, threshold_ms, stat, max_memory_mib, rank)


def spot_with_noise(
    found: Sequence[Candidate],
    threshold_ms: float | None,
    stat: str,
    max_memory_mib: float | None = None,
    rank: str = THROUGHPUT,
) -> SweetSpot | None:
    """`sweet_spot` with the other candidates under the limits that are within noise of it
    by `rank` (the compare screen's, and `perftui compare`'s)."""
    spot = sweet_spot(found, threshold_ms, stat, max_memory_mib, rank)
    if spot is None:
        return None
    under = [
        c
        for c in closed_loop_only(found)
        if c.group is not spot.group and _fits(c, threshold_ms, stat, max_memory_mib) is not None
    ]
    close = close_candidates(spot.best, under, rank)
    close.sort(key=lambda c: (c.side, -c.throughput_fps, c.run.id))  # not the input's order
    return replace(spot, within_noise=tuple(close))


def memory_picked_note(picked: str, max_memory_mib: float) -> str:
    """How the compared runs were picked, with the memory limit."""
    limit = f"with a memory peak at or under {mib_text(max_memory_mib)} MiB"
    return f"{picked}, {limit}" if picked else f"each side's fastest configuration {limit}"


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
                f"{mib_text(max_memory_mib)} MiB ({why}): its fastest configuration is compared"
            )
    return notes
