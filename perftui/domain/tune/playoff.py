"""The playoff that ends a tune: the fastest fitting trials, measured again in alternated
rounds, ranked by the ratios of their rounds' pairs.

A search measures each configuration apart from the others, minutes apart on a machine that
drifts, and keeps the best of many single runs: the luckiest of them. Where several
configurations are within 10-20 % of each other, that pick is a coin toss
(benchmarks/README.md, tune.py). Measured in turn, round after round (as `perftui compare
--measure` measures two projects), a drift falls on every contender alike, and the pairs of
a round judge the difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from perftui.domain.measurement.uncertainty import Ratio, paired_ratio
from perftui.domain.records import RunConfig
from perftui.domain.tune.result import Trial

PLAYOFF_SPAN = 0.2
"""Contenders: fitting trials whose throughput is within this share of the best's."""
PLAYOFF_SIZE = 3
"""The fastest this many contenders play."""
PLAYOFF_ROUNDS = 2
"""Rounds of one run each, forwards then backwards: the least a paired interval needs; a third
round buys nothing (benchmarks/README.md, tune_replay.py)."""

PLAYOFF_SHARE = 0.5
"""The playoff is expected to take at most this share of the time the search before it took
(the last run of each contender tells how long its runs take): the slowest contenders sit
it out (benchmarks/README.md, tune.py)."""

Round = Mapping[RunConfig, float]
"""One round: each contender's throughput (items/s); a failed run is missing."""


def contenders(trials: Sequence[Trial], best: Trial | None) -> list[Trial]:
    """The fitting trials whose throughput is within PLAYOFF_SPAN of `best`'s, fastest
    first, at most PLAYOFF_SIZE of them (`best` among them)."""
    if best is None:
        return []
    close = [t for t in trials if t.fits and t.fps >= best.fps * (1 - PLAYOFF_SPAN)]
    return sorted(close, key=lambda t: -t.fps)[:PLAYOFF_SIZE]


def affordable(
    field: Sequence[RunConfig], seconds: Mapping[RunConfig, float], search_s: float
) -> list[RunConfig]:
    """The leading contenders of `field` (fastest first) whose PLAYOFF_ROUNDS rounds, each
    run taking `seconds[config]`, fit in PLAYOFF_SHARE of `search_s`; the first always."""
    kept = list(field)
    while len(kept) > 1 and PLAYOFF_ROUNDS * sum(seconds[c] for c in kept) > (
        PLAYOFF_SHARE * search_s
    ):
        kept.pop()
    return kept


def play_order(field: Sequence[RunConfig], number: int) -> list[RunConfig]:
    """Round `number`'s order: forwards, then backwards, so no contender always runs first
    (a machine warming up or cooling down across a round favours one place)."""
    return list(field) if number % 2 == 0 else list(reversed(field))


def standings(rounds: Sequence[Round], eligible: Sequence[RunConfig]) -> dict[RunConfig, Ratio]:
    """Each eligible contender's throughput over the winner's, from the rounds every one
    of them finished: the geometric mean of the rounds' ratios with its paired 95 %
    interval; the winner (the highest geometric mean) stands at 1. Empty with fewer than
    two such rounds, or none eligible."""
    complete = [r for r in rounds if all(r.get(c, 0.0) > 0 for c in eligible)]
    if len(complete) < 2 or not eligible:
        return {}
    winner = max(eligible, key=lambda c: math.fsum(math.log(r[c]) for r in complete))
    top = [r[winner] for r in complete]
    found: dict[RunConfig, Ratio] = {winner: Ratio(1.0, 1.0, 1.0)}
    for config in eligible:
        ratio = paired_ratio(top, [r[config] for r in complete])
        if config != winner and ratio is not None:
            found[config] = ratio
    return found
