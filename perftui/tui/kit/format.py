"""How numbers, times and paths are written in the dashboard (presentation only)."""

from __future__ import annotations

import os
from pathlib import Path

from perftui.domain import units
from perftui.domain.benchform import LABELS
from perftui.domain.fields import in_form
from perftui.domain.uncertainty import Interval
from perftui.domain.verdict import INVALID, NOISY, STABLE

DASH = "—"


def escape(text: str) -> str:
    """Text to put inside Textual content markup: every '[' is escaped, so a name, path, error
    or typed value never opens (or closes) a tag, wherever it stands in the line. (Rich's
    `escape` only escapes what looks like a Rich tag, which leaves e.g. a lone '[' or
    'x[ 1]' to Textual's parser.)"""
    return text.replace("[", "\\[")


OPTIMIZE_LABELS = {
    "--method": "Method",
    "--calibration": "Calibration",
    "--samples": "Samples",
    "--name": "Name",
}
"""The optimize dialog's fields, by the flags of `perftui optimize`."""


def said(message: str) -> str:
    """A message from the lower floors (which name settings by their CLI flags) in the
    dashboard's words: each flag as the field's label."""
    return in_form(message, LABELS | OPTIMIZE_LABELS)


def fps(value: float | None) -> str:
    """Items per second: '1,234' above 100, else 3 significant digits."""
    if value is None:
        return DASH
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def ms(value: float | None) -> str:
    """Milliseconds as perftui.domain.units writes them, whole from 100 ms (narrow columns)."""
    return units.ms(value, missing=DASH, whole_from_100=True)


ENGINE_PRECISIONS = {"f32": "FP32", "f16": "FP16", "bf16": "BF16", "i8": "I8"}


def precision(text: str) -> str:
    """Precisions in the profiles' words ('FP32', 'I8/FP32'), whether they came from a profile
    or from the engine's setting ('f32')."""
    return "/".join(ENGINE_PRECISIONS.get(part, part) for part in text.split("/"))


def pct(share: float | None) -> str:
    return DASH if share is None else f"{share * 100:.1f}%"


def bar(share: float, width: int) -> str:
    """A share in [0, 1] as a text bar of at most `width` cells (eighth-block resolution)."""
    eighths = round(max(0.0, min(1.0, share)) * width * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + (" ▏▎▍▌▋▊▉"[rest] if rest else "")


def count(value: float | None, unit: str = "") -> str:
    """1234567 -> '1.23 M' (k, M, G, T)."""
    if value is None:
        return DASH
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {suffix}{unit}"
    return f"{value:.0f} {unit}".rstrip()


def size(nbytes: float | None) -> str:
    if nbytes is None:
        return DASH
    for factor, suffix in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if nbytes >= factor:
            return f"{nbytes / factor:.1f} {suffix}"
    return f"{nbytes:.0f} B"


def when(stamp: str | None, *, seconds: bool = False) -> str:
    """'2025-01-31T12:00:05+00:00' -> '2025-01-31 12:00' (as stored, UTC)."""
    if not stamp:
        return DASH
    return stamp.replace("T", " ")[: 19 if seconds else 16]


def shape(dims: tuple[int | str, ...] | list[int | str]) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


def short_path(path: str) -> str:
    """A path relative to the current directory when it is below it, else as given."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def model_name(path: str) -> str:
    return Path(path).name


VERDICT_MARKS = {STABLE: "✓", NOISY: "~", INVALID: "✗"}
VERDICT_LEGEND = "✓ stable, ~ noisy, ✗ invalid"
"""The verdict column's marks: each reads without colour; F1 help and the notices say the
reasons."""


def verdict_mark(status: str | None) -> str:
    return DASH if status is None else VERDICT_MARKS.get(status, "?")


def verdict_word(status: str) -> str:
    """'stable', 'noisy', 'INVALID' (capitals: the one that must not be missed)."""
    return status.upper() if status == INVALID else status


def verdict_or_status(status: str, verdict: str) -> str:
    """A finished run's verdict word; the status of one that did not finish (failed,
    cancelled), which says more than INVALID."""
    return verdict_word(verdict) if status == "ok" else status


def fps_ci(value: float | None, interval: Interval | None) -> str:
    """Items per second with the 95 % interval: '812 ±3%'."""
    return DASH if value is None else fps(value) + units.spread_text(interval)


def ms_ci(value: float | None, interval: Interval | None) -> str:
    """Milliseconds with the 95 % interval: '4.12 ±2%'."""
    return DASH if value is None else ms(value) + units.spread_text(interval)
