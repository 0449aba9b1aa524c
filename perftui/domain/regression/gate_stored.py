"""A gate as the store keeps it: both sides' rounds carry one label that pairs them (as
`compare --measure`'s do, perftui.domain.compare.pairing) and names the gate's settings, so
its verdict can be judged again from the stored rounds, as the gate judged it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from perftui.domain.measurement.statistic import NAMES
from perftui.domain.regression.gate import (
    GATE,
    Decision,
    Schedule,
    decide,
    round_values,
    saturation,
)

if TYPE_CHECKING:
    from perftui.domain.records import RunResult


@dataclass(frozen=True)
class GateSettings:
    max_slowdown: float
    stats: tuple[str, ...]
    rounds: int


def gate_label(token: str, settings: GateSettings) -> str:
    """The label of a gate's runs on both sides: an alternation label that also names the
    gate's limit, statistics and most rounds."""
    from perftui.domain.compare.pairing import alternation_label

    return alternation_label(
        f"{token} max-slowdown={settings.max_slowdown * 100:g}% stat={','.join(settings.stats)}"
        f" rounds={settings.rounds}",
        GATE,
    )


def parse_gate_label(label: object) -> GateSettings | None:
    """The settings a gate's label (`gate_label`) names, else None."""
    if not isinstance(label, str) or not label.startswith(GATE + " "):
        return None
    fields = dict(part.split("=", 1) for part in label.split()[2:] if "=" in part)
    try:
        slowdown = float(fields["max-slowdown"].removesuffix("%")) / 100
        stats = tuple(s for s in fields["stat"].split(",") if s in NAMES)
        rounds = int(fields["rounds"])
    except (KeyError, ValueError):
        return None
    if not stats or slowdown <= 0 or rounds < 1:
        return None
    return GateSettings(slowdown, stats, rounds)


def run_label(run: RunResult) -> str:
    label = run.resolved.get("label")
    return label if isinstance(label, str) else ""


@dataclass(frozen=True)
class StoredGate:
    """A stored gate judged again: its label, when it started, and its decision."""

    label: str
    started_at: str
    decision: Decision
    baseline_runs: tuple[RunResult, ...]

    def is_baseline(self, project: str) -> bool:
        """Whether `project` was the gate's baseline (else its candidate)."""
        return self.baseline_runs[0].project == project

    @property
    def ratios_text(self) -> str:
        """Candidate/baseline per statistic as the gate judged it, with its interval:
        'median 1.050 (1.020-1.080); p99 ...', or '' where no statistic was judged."""
        return "; ".join(
            f"{v.stat} {v.ratio:.3f} ({v.lo:.3f}-{v.hi:.3f})"
            for v in self.decision.stats
            if v.ratio is not None and v.lo is not None and v.hi is not None
        )


def latest_gate_label(runs: Sequence[RunResult]) -> str:
    """The label of the newest gate among a project's runs, or ""."""
    gated = [r for r in runs if parse_gate_label(run_label(r)) is not None]
    return run_label(max(gated, key=lambda r: r.started_at)) if gated else ""


def stored_gate(
    label: str, one: Sequence[RunResult], other: Sequence[RunResult]
) -> StoredGate | None:
    """The gate of that label judged again from both sides' stored rounds; the baseline is the
    side whose first round ran first (round 1 is A then B). None for a label that is not a
    gate's or a side without rounds."""
    settings = parse_gate_label(label)
    mine = [r for r in one if run_label(r) == label]
    theirs = [r for r in other if run_label(r) == label]
    if settings is None or not mine or not theirs:
        return None
    first = min((*mine, *theirs), key=lambda r: (r.repetition, r.started_at))
    a, b = (mine, theirs) if any(first is r for r in mine) else (theirs, mine)
    schedule = Schedule.for_rounds(settings.rounds, len(settings.stats))
    values = round_values(a, b, settings.stats)
    n = max(
        (sum(x is not None and y is not None for x, y in v) for v in values.values()), default=0
    )
    look = sum(1 for at in schedule.looks if at < n)
    decision = decide(
        values, settings.max_slowdown, schedule, look, final=True, saturated=saturation(a, b)
    )
    started = min(r.started_at for r in (*a, *b))
    return StoredGate(label, started, decision, tuple(a))


def gate_note(found: StoredGate, a_name: str, b_name: str) -> str:
    """A stored gate in one line, for a comparison of its two projects: its verdict, which
    side was the candidate, B/A per statistic as the gate judged it."""
    d = found.decision
    baseline, candidate = (a_name, b_name) if found.is_baseline(a_name) else (b_name, a_name)
    return (
        f"gate {found.started_at[:16].replace('T', ' ')}: {d.outcome.upper()}, {candidate} "
        f"against {baseline} at {d.max_slowdown * 100:g} % slower, {d.rounds} rounds "
        f"(candidate/baseline {found.ratios_text or 'not judged'})"
    )


def gate_notes(
    paired: RunResult, a_name: str, a_runs: Sequence[RunResult], b_name: str,
    b_runs: Sequence[RunResult],
) -> list[str]:  # fmt: skip
    """For a comparison judged from a gate's rounds (`paired` is one of them): the gate's
    verdict, judged again (`gate_note`); [] for other rounds."""
    found = stored_gate(run_label(paired), a_runs, b_runs)
    return [gate_note(found, a_name, b_name)] if found is not None else []
