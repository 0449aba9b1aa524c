"""What differs between the settings of two compared runs: a ratio of two runs is the
model's difference only when they ran alike, so the difference is said beside the verdict."""

from __future__ import annotations

from perftui.domain.measurement.context import UNSAID, ran_precision
from perftui.domain.records import RunResult


def _threads(value: int) -> str:
    return "auto" if value == 0 else str(value)


def _asked(value: str | None) -> str:
    return value or "default"


def _dims(run: RunResult) -> str:
    return " ".join(f"{name}={value}" for name, value in run.config.dims) or "none"


SETTINGS = (
    ("batch", lambda r: str(r.config.batch)),
    ("threads", lambda r: _threads(r.config.threads)),
    ("streams", lambda r: str(r.config.streams)),
    ("requests", lambda r: str(r.config.requests)),
    ("hint", lambda r: r.config.hint),
    ("api", lambda r: r.config.api),
    ("precision asked", lambda r: _asked(r.config.precision)),
    ("dims", _dims),
)
"""Each setting of a run that a comparison holds equal, and how it reads."""


def differing_settings(a: RunResult, b: RunResult) -> list[str]:
    """'batch 1 vs 4', 'precision run bf16 vs f32', ...: each setting in which A's run
    differs from B's (empty when they ran alike)."""
    found = [f"{name} {get(a)} vs {get(b)}" for name, get in SETTINGS if get(a) != get(b)]
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
