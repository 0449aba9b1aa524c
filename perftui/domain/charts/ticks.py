"""Axis ticks for text charts: nice steps (1, 2, 2.5 or 5 times a power of ten) from 0,
evenly spaced on the rows of the chart.

A text chart has few rows, so a tick whose value falls between two rows is drawn on the
nearer one and the labels end up unevenly spaced (686.2 / 571.8 / 343.1 / 228.7 / 0.0). The
axis here is stretched so that every step is a whole number of rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

NICE = (1.0, 2.0, 2.5, 5.0, 10.0)


def nice_step(least: float) -> float:
    """The smallest nice step (1, 2, 2.5 or 5 times a power of ten) >= `least` (> 0)."""
    power = 10.0 ** math.floor(math.log10(least))
    return next(m * power for m in NICE if m * power >= least * (1 - 1e-9))


@dataclass(frozen=True)
class Axis:
    top: float
    """Where the axis ends (>= the data); a tick itself only when the steps fill the rows."""
    ticks: tuple[float, ...]
    """0, step, 2 x step, ... up to `top`."""

    @property
    def labels(self) -> list[str]:
        """The ticks as text, with as many decimals as the step needs: 0, 2.5, 5, 7.5."""
        step = self.ticks[1] if len(self.ticks) > 1 else self.top
        decimals = len(f"{step:.6f}".rstrip("0").split(".")[1])
        return [f"{tick:.{decimals}f}" for tick in self.ticks]


def row_axis(top: float, rows: int, most: int = 6) -> Axis:
    """A 0-based axis over `rows` rows (or columns) of text that reaches `top`, with 3 to
    `most` ticks (fewer on 2 rows), each on a row of its own and the same number of rows
    apart.

    Of the spacings that fit, the one that wastes the least of the rows wins (then the
    one with more ticks)."""
    top = top if top > 0 else 1.0
    gaps = max(1, rows - 1)
    fewest = min(3, gaps + 1)
    best: tuple[float, int, float] | None = None  # (axis top, -ticks, step)
    for spacing in range(1, gaps + 1):
        count = gaps // spacing + 1
        if not fewest <= count <= max(most, fewest):
            continue
        step = nice_step(top * spacing / gaps)
        option = (step * gaps / spacing, -count, step)
        if best is None or option[:2] < best[:2]:
            best = option
    assert best is not None
    axis_top, count, step = best
    return Axis(axis_top, tuple(step * n for n in range(-count)))


def nice_axis(top: float, most: int = 6) -> Axis:
    """A 0-based axis for a drawing with room for any tick (an SVG): nice, even steps, 3 to
    `most` ticks, ending at the first tick at or above `top`, the one that wastes least of
    the axis (a maximum of 2,215 gets 0, 500, ... 2,500, not an axis to 5,000)."""
    top = top if top > 0 else 1.0
    best: tuple[float, int, float] | None = None  # (axis top, -ticks, step)
    for gaps in range(2, most):
        step = nice_step(top / gaps)
        count = math.ceil(top / step - 1e-9)
        if 2 <= count <= most - 1:
            option = (step * count, -(count + 1), step)
            if best is None or option[:2] < best[:2]:
                best = option
    assert best is not None
    axis_top, count, step = best
    return Axis(axis_top, tuple(step * n for n in range(-count)))
