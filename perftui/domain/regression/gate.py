"""The regression gate's decision (`perftui gate BASELINE CANDIDATE`): pass, fail or
inconclusive, from rounds measured alternately (perftui.domain.compare.pairing).

Slower by s means each inference takes (1 + s) times as long: a latency statistic's B/A
above 1 + s, a throughput's B/A below 1 / (1 + s). Per statistic, over the rounds' pairs,
the log of B's time over A's (d_i) has a one-sided t bound on each side of its mean:

- fail: the lower bound lies above log(1 + s) (slower by more than s, with confidence);
- pass: the upper bound lies below it (not slower by more than s, with confidence);
- inconclusive: the limit lies between the bounds.

The gate looks at the data on a schedule fixed before measuring (`Schedule`: at most
len(LOOKS) looks, the first after `FIRST_LOOK` rounds) and stops at the first look that
decides. Each look k spends a share alpha_k of ALPHA, in proportion to its rounds, so the
shares add to ALPHA (Bonferroni: the chance that any look errs is at most their sum,
however the looks' data overlap); with several statistics each share is divided among them
too. So a gate that stops early still errs at most 5 % of the time each way: a wrong fail
(the candidate is not slower than the limit) or a wrong pass (it is slower than that).
The exact t quantile comes from the closed form of Student's distribution for whole degrees
of freedom (Abramowitz and Stegun 26.7.3-4), bisected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from perftui.domain.errors import InputError
from perftui.domain.measurement.statistic import statistic
from perftui.domain.measurement.uncertainty import t_quantile

if TYPE_CHECKING:
    from perftui.domain.records import RunResult

GATE = "gate"
"""The label kind of a gate's runs (perftui.domain.compare.pairing.GATE: the same word; this
module stays light, for the CLI's parser)."""
PASS, FAIL, INCONCLUSIVE = "pass", "fail", "inconclusive"
ALPHA = 0.05
"""Each wrong verdict (pass or fail) at most this often: 95 % confidence."""
MAX_SLOWDOWN = 0.05
LEAST_SLOWDOWN, MOST_SLOWDOWN = 0.001, 1.0
"""--max-slowdown from 0.1 % to 100 % (twice as slow)."""
LOOKS = (1 / 6, 1 / 3, 2 / 3, 1.0)
"""Where the gate looks, as shares of --rounds: early looks settle a clear case in a few
rounds on a quiet machine; the later ones keep most of the error to spend."""
FIRST_LOOK = 5
"""Rounds before the first look: fewer pairs give a t bound too wide to decide."""
ROUNDS = 30
"""The most rounds a gate measures by default."""
LEAST_ROUNDS, MOST_ROUNDS = 3, 200


def parse_max_slowdown(text: object) -> float:
    """--max-slowdown: a percentage ("5", "5%") above 0 and up to 100 %, as a fraction;
    InputError with one line otherwise."""
    shown = str(text).strip()
    try:
        value = float(shown.removesuffix("%").strip())
    except ValueError:
        raise InputError(f"{shown!r} is not a percentage; give one like 5 or 5%") from None
    if not LEAST_SLOWDOWN * 100 <= value <= MOST_SLOWDOWN * 100:
        raise InputError(
            f"{shown} is out of range; give a slowdown from {LEAST_SLOWDOWN * 100:g} % to "
            f"{MOST_SLOWDOWN * 100:g} % (twice as slow)"
        )
    return value / 100


def parse_rounds(text: object) -> int:
    """--rounds: the most rounds, from LEAST_ROUNDS to MOST_ROUNDS; InputError otherwise."""
    try:
        rounds = int(str(text).strip())
    except ValueError:
        rounds = 0
    if not LEAST_ROUNDS <= rounds <= MOST_ROUNDS:
        raise InputError(f"{text!r} is not a number of rounds from {LEAST_ROUNDS} to {MOST_ROUNDS}")
    return rounds


def figure(run: RunResult, stat: str) -> float | None:
    """A run's throughput or latency statistic; None for a run that did not succeed."""
    from perftui.domain.compare.sides import run_latency

    if statistic(stat).higher_is_better:  # throughput
        return run.throughput_fps if run.status == "ok" and run.throughput_fps > 0 else None
    return run_latency(run, stat)


def round_values(
    a_runs: Sequence[RunResult], b_runs: Sequence[RunResult], stats: Sequence[str]
) -> dict[str, list[tuple[float | None, float | None]]]:
    """Per statistic, (A's figure, B's figure) of each round both sides ran (by `repeat`)."""
    b_rounds = {run.repetition: run for run in b_runs}
    pairs = [(run, b_rounds[run.repetition]) for run in a_runs if run.repetition in b_rounds]
    return {stat: [(figure(a, stat), figure(b, stat)) for a, b in pairs] for stat in stats}


# ------------------------------------------------------------------ the schedule


@dataclass(frozen=True)
class Schedule:
    """The rounds after which the gate looks, and the error each look may spend."""

    looks: tuple[int, ...]
    stats: int = 1

    @classmethod
    def for_rounds(cls, rounds: int, stats: int = 1) -> Schedule:
        """A look at each share of `rounds` in LOOKS, none before FIRST_LOOK."""
        first = min(FIRST_LOOK, rounds)
        looks = {max(first, math.ceil(rounds * share - 1e-9)) for share in LOOKS}
        return cls(tuple(sorted(looks)), max(1, stats))

    @property
    def rounds(self) -> int:
        return self.looks[-1]

    def alpha(self, look: int) -> float:
        """The one-sided error look number `look` (0-based) may spend on each statistic."""
        share = self.looks[min(look, len(self.looks) - 1)] / sum(self.looks)
        return ALPHA * share / self.stats

    def is_look(self, rounds: int) -> bool:
        return rounds in self.looks


# ------------------------------------------------------------------ the decision


@dataclass(frozen=True)
class StatVerdict:
    """One statistic's verdict: B/A of the figure with its bounds at the look's confidence."""

    stat: str
    outcome: str
    pairs: int
    limit: float
    """B/A at the limit: 1 + s for a latency, 1 / (1 + s) for throughput."""
    ratio: float | None = None
    lo: float | None = None
    hi: float | None = None
    spread: float | None = None
    """The standard deviation of the pairs' log ratios (about the relative spread)."""

    @property
    def higher_is_better(self) -> bool:
        return statistic(self.stat).higher_is_better


@dataclass(frozen=True)
class Decision:
    """The gate's verdict at one look."""

    outcome: str
    stats: tuple[StatVerdict, ...]
    rounds: int
    look: int
    """How many looks were made, this one included."""
    confidence: float
    """Each bound's one-sided confidence at this look (1 - alpha_k)."""
    max_slowdown: float
    advice: str = ""
    """For inconclusive: what would settle it."""
    reason: str = ""
    """Why the rounds' B/A was not judged: a side did not keep up at its rate (`saturation`)."""

    @property
    def settled(self) -> bool:
        return self.outcome != INCONCLUSIVE


Values = Sequence[tuple[float | None, float | None]]
"""(A's figure, B's figure) of each round."""


def judge_stat(stat: str, values: Values, max_slowdown: float, alpha: float) -> StatVerdict:
    """One statistic over the rounds' pairs (see the module's rule)."""
    up = statistic(stat).higher_is_better
    limit = 1 / (1 + max_slowdown) if up else 1 + max_slowdown
    known = [(a, b) for a, b in values if a is not None and b is not None and a > 0 and b > 0]
    if len(known) < 2:
        return StatVerdict(stat, INCONCLUSIVE, len(known), limit)
    logs = [math.log(a / b) if up else math.log(b / a) for a, b in known]  # B's time over A's
    n = len(logs)
    mean = math.fsum(logs) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in logs) / (n - 1))
    half = t_quantile(alpha, n - 1) * sd / math.sqrt(n)
    slow_lo, slow_hi = mean - half, mean + half
    border = math.log(1 + max_slowdown)
    outcome = FAIL if slow_lo > border else PASS if slow_hi < border else INCONCLUSIVE
    if up:  # B/A of a throughput is A's time over B's
        ratio, lo, hi = math.exp(-mean), math.exp(-slow_hi), math.exp(-slow_lo)
    else:
        ratio, lo, hi = math.exp(mean), math.exp(slow_lo), math.exp(slow_hi)
    return StatVerdict(stat, outcome, n, limit, ratio, lo, hi, sd)


def saturation(a_runs: Sequence[RunResult], b_runs: Sequence[RunResult]) -> tuple[str, str]:
    """Per side (A, B), why it did not keep up at its rate in more than half of its rounds
    (open loop: perftui.domain.traffic.figures); "" for a side that kept up or ran closed.
    Such a side's latencies grow with the window, so B/A of them is no slowdown."""

    def why(runs: Sequence[RunResult], role: str) -> str:
        found = [r.traffic for r in runs if r.traffic is not None]
        full = [t for t in found if t.is_saturated]
        if not found or 2 * len(full) <= len(found):
            return ""
        return (
            f"the {role} did not keep up at {full[0].rate:g}/s in {len(full)} of {len(found)}"
            f" rounds ({full[0].saturated[0]})"
        )

    return why(a_runs, "baseline"), why(b_runs, "candidate")


def decide(
    values: Mapping[str, Values],
    max_slowdown: float,
    schedule: Schedule,
    look: int,
    final: bool,
    saturated: tuple[str, str] = ("", ""),
) -> Decision:
    """The verdict at look number `look` (0-based): fail if any statistic fails, pass if all
    pass, else inconclusive (with what would settle it when `final`). A side that did not
    keep up at its rate (`saturation`) decides it instead: the candidate fails, a baseline
    alone leaves it inconclusive; no B/A is judged."""
    alpha = schedule.alpha(look)
    baseline, candidate = saturated
    if baseline or candidate:
        up = {s: statistic(s).higher_is_better for s in values}
        limits = {s: 1 / (1 + max_slowdown) if up[s] else 1 + max_slowdown for s in values}
        outcome = FAIL if candidate else INCONCLUSIVE
        pairs = max((len(v) for v in values.values()), default=0)
        verdicts = tuple(StatVerdict(s, outcome, pairs, limits[s]) for s in values)
        advice = (
            "gate at a rate the baseline serves (a lower --rate), or closed-loop" if not candidate
            else ""
        )  # fmt: skip
        return Decision(
            outcome, verdicts, pairs, look + 1, 1 - alpha, max_slowdown, advice,
            candidate or baseline,
        )  # fmt: skip
    verdicts = tuple(judge_stat(s, v, max_slowdown, alpha) for s, v in values.items())
    outcomes = {v.outcome for v in verdicts}
    outcome = FAIL if FAIL in outcomes else PASS if outcomes == {PASS} else INCONCLUSIVE
    rounds = max((v.pairs for v in verdicts), default=0)
    advice = settle_advice(verdicts, schedule, max_slowdown) if final else ""
    if outcome != INCONCLUSIVE:
        advice = ""
    return Decision(outcome, verdicts, rounds, look + 1, 1 - alpha, max_slowdown, advice)


def settle_advice(verdicts: Sequence[StatVerdict], schedule: Schedule, max_slowdown: float) -> str:
    """What would settle an inconclusive gate: about how many rounds at this spread, or a
    quieter machine, or a limit further from the measured slowdown."""
    border = math.log(1 + max_slowdown)
    needed = 0
    for verdict in verdicts:
        if verdict.outcome != INCONCLUSIVE:
            continue
        if verdict.ratio is None or verdict.spread is None:
            return "too few rounds succeeded on both sides to judge: check the runs' errors"
        slow = -math.log(verdict.ratio) if verdict.higher_is_better else math.log(verdict.ratio)
        gap = abs(slow - border)
        if gap < 0.1 * border:
            return (
                f"{verdict.stat}: the candidate is as slow as the limit allows (within a tenth "
                "of it): no practical number of rounds decides that; set --max-slowdown to "
                "what matters"
            )
        z = t_quantile(schedule.alpha(len(schedule.looks) - 1), 30)
        needed = max(needed, math.ceil((z * verdict.spread / gap) ** 2))
    spread = max((v.spread or 0.0) for v in verdicts)
    return (
        f"about {needed} rounds at this spread (the pairs varied {spread * 100:.1f} %) would "
        f"settle it: --rounds {max(needed, schedule.rounds + 1)} and a longer --budget, or a "
        "quieter machine, which narrows the spread"
    )
