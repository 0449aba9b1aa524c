"""What differs between the settings of two compared runs: a ratio of two runs is the
model's difference only when they ran alike, so the difference is said beside the verdict."""

from __future__ import annotations

from perftui.domain.measurement.context import UNSAID, ran_precision
from perftui.domain.records import RunResult
from perftui.domain.settings import differing


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
