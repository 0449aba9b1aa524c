"""What differs between the settings of two compared runs: a ratio of two runs is the
model's difference only when they ran alike, so the difference is said beside the verdict."""

from __future__ import annotations

from collections.abc import Sequence

from perftui.domain.measurement.context import UNSAID, ran_precision
from perftui.domain.records import RunResult
from perftui.domain.settings import BY_NAME, differing


def differing_settings(a: RunResult, b: RunResult) -> list[str]:
    """'batch 1 vs 4', 'precision run bf16 vs f32', ...: each setting in which A's run
    differs from B's (empty when they ran alike)."""
    found = differing(a.config, b.config)
    ran_a, ran_b = ran_precision(a), ran_precision(b)
    if ran_a != ran_b and UNSAID not in (ran_a, ran_b):
        found.append(f"precision run {ran_a} vs {ran_b}")
    return found


def settings_note(a: RunResult, b: RunResult) -> str | None:
    """The note that B/A compares runs of different settings, naming them; None if alike."""
    found = differing_settings(a, b)
    if not found:
        return None
    return (
        "the compared runs differ in settings (" + ", ".join(found) + "): B/A is not the"
        " models' difference alone"
    )


def unlike_loads(
    a: RunResult, b: RunResult, sides: Sequence[tuple[str, Sequence[RunResult]]]
) -> str | None:
    """Why B/A is not given where the compared runs ran at different loads (a rate and a
    closed loop, or two rates): latency from arrival at one rate is no figure to divide by
    another rate's, or by a closed loop's; None where they ran at the same load. `sides`:
    A's and B's (project name, runs)."""
    if a.config.rate == b.config.rate:
        return None
    reads = BY_NAME["rate"].reads
    (a_name, a_runs), (b_name, b_runs) = sides
    lacking = [
        f"{side} ({name}) has no run at {reads(rate)}"
        for side, name, runs, rate in (
            ("B", b_name, b_runs, a.config.rate),
            ("A", a_name, a_runs, b.config.rate),
        )
        if rate is not None and not any(r.config.rate == rate and r.status == "ok" for r in runs)
    ]

    def load(rate: float | None) -> str:
        return "closed loop" if rate is None else f"@{reads(rate)}"

    loads = f"A {load(a.config.rate)}, B {load(b.config.rate)}"
    return "; ".join(
        [
            *lacking,
            f"the compared runs ran at different loads ({loads}): B/A is not given, as an "
            "open-loop figure is compared only with one at the same rate",
        ]
    )
