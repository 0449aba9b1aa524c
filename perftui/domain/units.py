"""How measured figures are written as text, the same in the CLI and the dashboard."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perftui.domain.uncertainty import Interval


def ms(value: float | None, *, missing: str = "-", whole_from_100: bool = False) -> str:
    """Milliseconds with precision that suits the magnitude: 0.123, 12.34, 1,234.5.

    `whole_from_100` drops the tenths from 100 ms up (1,235): the dashboard's narrow columns
    keep three significant digits there, the CLI's tables keep the tenth.
    """
    if value is None:
        return missing
    if value < 1:
        return f"{value:.3f}"
    if value < 100:
        return f"{value:.2f}"
    return f"{value:,.0f}" if whole_from_100 else f"{value:,.1f}"


def spread_text(interval: Interval | None) -> str:
    """' ±3%' (the larger side of the 95 % interval), ' ±?' where the samples cannot bound
    it, '' without an interval."""
    if interval is None:
        return ""
    if not interval.bounded:
        return " ±?"
    rel = interval.relative
    return f" ±{rel:.0%}" if rel >= 0.01 else f" ±{rel:.1%}"
