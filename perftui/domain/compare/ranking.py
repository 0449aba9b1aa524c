"""What the sweet spot ranks the runs under the latency and memory limits by: the highest
throughput, or the lowest cost per million inferences at each run's recorded price (runs
measured without a price then take no part), and the notes on the memory limit. The CLI's
`compare` and the compare screen rank with this one rule."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from perftui.domain.compare.sides import Side
from perftui.domain.measurement.cost import run_cost
from perftui.domain.measurement.memory import fits_memory, mib_text
from perftui.domain.records import RunResult

THROUGHPUT, COST = "throughput", "cost"
RANKS = (THROUGHPUT, COST)
RANK_WORDS = {THROUGHPUT: "best throughput", COST: "lowest cost per million inferences"}
"""How a headline names each ranking."""


def rank_key(run: RunResult, rank: str) -> float | None:
    """Lower ranks first: the negated throughput, or the cost (None: the run has no cost)."""
    if rank == COST:
        return run_cost(run)
    return -run.throughput_fps


def priced(runs: Iterable[RunResult]) -> bool:
    """Whether any of the runs has a cost (so ranking by cost can find something)."""
    return any(run_cost(run) is not None for run in runs)


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
