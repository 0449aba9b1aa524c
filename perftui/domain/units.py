"""How measured figures are written as text, the same in the CLI and the dashboard."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perftui.domain.measurement.uncertainty import Interval, Ratio


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
    it, ' too noisy' where it reaches zero or passes ±100 % (the verdict says what to do),
    '' without an interval."""
    if interval is None:
        return ""
    if not interval.bounded:
        return " ±?"
    if interval.too_noisy:
        return " too noisy"
    return f" ±{percent(interval.relative)}"


SMALLEST_PERCENT = 0.001
"""Below this many per cent a share is written '<0.001%'."""


def percent(share: float) -> str:
    """A share as per cent with the digits it needs not to read as zero: '3%', '0.4%',
    '0.04%', '<0.001%' ('0%' only for nothing at all)."""
    value = share * 100
    if value == 0:
        return "0%"
    if value < SMALLEST_PERCENT:
        return f"<{SMALLEST_PERCENT:g}%"
    shown = float(f"{value:.1g}")  # rounded first: 0.0999 is '0.1%', not '0.10%'
    digits = max(0, -math.floor(math.log10(shown)))
    return f"{value:.{digits}f}%"


def playoff_text(standing: Ratio | None, *, interval: bool = True) -> str:
    """A tune trial's place in the playoff: ' won the playoff', or ' playoff 0.93x
    (0.85-1.02)', its throughput over the winner's from the paired rounds (the interval
    left out where `interval` is False); '' for a trial that did not play."""
    if standing is None:
        return ""
    if standing.lo == standing.hi == standing.value:
        return " won the playoff" if interval else " won"
    ci = f" ({standing.lo:.2f}-{standing.hi:.2f})" if interval else ""
    return f" playoff {standing.value:.2f}x{ci}" if interval else f" {standing.value:.2f}x"
