"""How figures are written: an interval is never shown as ±0.0% when it is not zero."""

from __future__ import annotations

import pytest

from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.units import percent, spread_text


@pytest.mark.parametrize(
    ("half_width", "text"),
    [
        (0.0, " ±0%"),
        (0.03, " ±3%"),
        (0.004, " ±0.4%"),
        (0.0004, " ±0.04%"),
        (0.00004, " ±0.004%"),
        (0.000001, " ±<0.001%"),
        (0.000999, " ±0.1%"),
        (0.0096, " ±1%"),
    ],
)
def test_a_narrow_interval_keeps_the_digits_that_make_it_nonzero(half_width: float, text: str):
    """A median's interval of ±0.04 % read '±0.0%' in the tables, as if it were exact."""
    interval = Interval(10.0, 10.0 * (1 - half_width), 10.0 * (1 + half_width), 500)
    assert spread_text(interval) == text


@pytest.mark.parametrize("share", [0.00049, 0.0004, 0.000049, 0.000011, 0.0099, 0.0951, 0.5])
def test_a_share_never_reads_as_zero(share: float):
    shown = percent(share)
    assert shown.startswith("<") or float(shown.rstrip("%")) > 0
