"""A and B measured alternately (`perftui compare --measure`): their runs paired round by
round, and B/A judged from the pairs (perftui.domain.measurement.uncertainty.paired_ratio).

Both sides' benchmarks carry one label, `alternated <token>` (or `gate <token> ...` for a
regression gate's rounds, domain.regression.gate_stored), in their runs' `resolved["label"]`;
round i of A pairs with round i of B (their `repeat`). Runs measured apart are never paired,
however they happen to line up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from perftui.domain.compare.sides import Side, run_latency
from perftui.domain.compare.verdicts import Difference, judged
from perftui.domain.forms.bench import MEASURE_TIME_S
from perftui.domain.measurement.figures import ConfigGroup
from perftui.domain.measurement.uncertainty import paired_ratio
from perftui.domain.records import BenchmarkRequest, Project, RunResult

ALTERNATED = "alternated"
GATE = "gate"
Pair = tuple[RunResult, RunResult]


def alternation_label(token: str, kind: str = ALTERNATED) -> str:
    """The label both sides' benchmarks of one alternated measurement carry (`kind`:
    ALTERNATED for `compare --measure`, GATE for `perftui gate`)."""
    return f"{kind} {token}"


def measure_request(
    measured: BenchmarkRequest,
    project: Project,
    run: RunResult,
    rounds: int,
    token: str,
    time_s: float = MEASURE_TIME_S,
    label: str = "",
) -> BenchmarkRequest:
    """The request that measures `run`'s configuration again, `rounds` times for `time_s`
    each, as its own benchmark (`measured`) measured it otherwise: iterations, warm-up,
    shapes, data and seed; no profile. Labelled `label`, else `alternation_label(token)`."""
    return replace(
        measured,
        project=project,
        configs=(run.config,),
        budget=replace(measured.budget, time_s=time_s),
        repeat=rounds,
        profile=False,
        label=label or alternation_label(token),
    )


def _alternation(run: RunResult) -> str:
    """The run's alternation label (`alternation_label`), or "" for a run measured apart."""
    label = run.resolved.get("label")
    if isinstance(label, str) and label.startswith((ALTERNATED + " ", GATE + " ")):
        return label
    return ""


def paired_runs(a: ConfigGroup | None, b: ConfigGroup | None) -> list[Pair]:
    """(A run, B run) of each round both measured successfully, when the two groups were
    measured alternately with each other; [] otherwise or with fewer than two such rounds."""
    if a is None or b is None or not a.runs or not b.runs:
        return []
    label = _alternation(a.runs[0])
    if not label or any(_alternation(r) != label for r in (*a.runs, *b.runs)):
        return []
    b_rounds = {r.repetition: r for r in b.ok_runs}
    pairs = [(run, b_rounds[run.repetition]) for run in a.ok_runs if run.repetition in b_rounds]
    return pairs if len(pairs) >= 2 else []


def latest_alternation(
    a_runs: Sequence[RunResult], b_runs: Sequence[RunResult]
) -> tuple[str, str] | None:
    """The ids of A's and B's first finished round of the latest alternated measurement
    the two sides share, or None: what a comparison shows by default once `compare
    --measure` has measured the pair, rather than each side's fastest run, measured apart."""
    started: dict[str, str] = {}
    firsts: dict[Side, dict[str, RunResult]] = {Side.A: {}, Side.B: {}}
    for side, runs in zip(Side, (a_runs, b_runs), strict=True):
        for run in runs:
            label = _alternation(run)
            if run.status != "ok" or not label:
                continue
            started[label] = max(started.get(label, ""), run.started_at)
            first = firsts[side].get(label)
            if first is None or run.repetition < first.repetition:
                firsts[side][label] = run
    shared = [label for label in firsts[Side.A] if label in firsts[Side.B]]
    if not shared:
        return None
    label = max(shared, key=lambda found: started[found])
    return firsts[Side.A][label].id, firsts[Side.B][label].id


def paired_difference(
    metric: str, pairs: Sequence[Pair], figure: Callable[[RunResult], float | None]
) -> Difference:
    """B/A of one figure over the pairs, in words."""
    values = [(figure(a), figure(b)) for a, b in pairs]
    known = [(x, y) for x, y in values if x is not None and y is not None]
    ratio = paired_ratio([x for x, _ in known], [y for _, y in known])
    if ratio is None:
        return Difference(metric, None, f"{metric}: no pairs to judge by")
    return judged(metric, ratio)


def paired_differences(pairs: Sequence[Pair], stat: str) -> tuple[Difference, Difference]:
    """Throughput and the `stat` latency, B/A over the pairs."""
    return (
        paired_difference("throughput", pairs, lambda r: r.throughput_fps),
        paired_difference(stat, pairs, lambda r: run_latency(r, stat)),
    )


def paired_note(pairs: Sequence[Pair]) -> str:
    return (
        f"A and B were measured alternately, {len(pairs)} rounds: B/A is judged from the "
        "rounds' pairs, so a drift of the machine between rounds falls on both sides alike"
    )


@dataclass(frozen=True)
class Paired:
    """B/A of the latest rounds of A's and B's compared configurations measured alternately,
    beside a verdict judged from runs measured apart (which is which, said)."""

    rounds: int
    throughput: Difference
    latency: Difference

    @property
    def text(self) -> str:
        """'measured alternately, 5 rounds: B is 1.50x faster (1.18-1.90); ...'."""
        found = "; ".join(d.text for d in (self.throughput, self.latency))
        return f"measured alternately, {self.rounds} rounds: {found}"


APART = "measured apart, each side's runs"
"""What a verdict beside a `Paired` one was judged from."""


def latest_paired(
    a_runs: Sequence[RunResult],
    b_runs: Sequence[RunResult],
    a: RunResult,
    b: RunResult,
    stat: str,
) -> Paired | None:
    """The verdict of the latest alternated measurement of `a`'s configuration on side A
    and `b`'s on side B among the runs (None: none with two rounds on both sides)."""
    mine = [r for r in a_runs if r.config == a.config], [r for r in b_runs if r.config == b.config]
    found = latest_alternation(*mine)
    if found is None:
        return None
    label = next(_alternation(r) for r in mine[0] if r.id == found[0])
    rounds = [
        {r.repetition: r for r in runs if _alternation(r) == label and r.status == "ok"}
        for runs in mine
    ]
    pairs = [(run, rounds[1][n]) for n, run in sorted(rounds[0].items()) if n in rounds[1]]
    if len(pairs) < 2:
        return None
    return Paired(len(pairs), *paired_differences(pairs, stat))
