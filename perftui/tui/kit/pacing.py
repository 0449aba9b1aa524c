"""How often a live view may redraw: at most `max_hz` times a second, and less often when
one redraw costs so much that the redraws would take more than `budget` of a core.

Pure arithmetic (no textual). The dashboard shares the machine with the benchmark it
watches; a big terminal makes each chart frame dearer, so it gets fewer of them.
"""

from __future__ import annotations


def redraw_interval(cost_s: float, max_hz: float, budget: float) -> float:
    """Seconds to wait between redraws that each take `cost_s` seconds of CPU, so that
    redrawing uses at most `budget` (a fraction of one core) and happens at most `max_hz`
    times a second."""
    floor = 1.0 / max_hz
    if budget <= 0:
        return floor
    return max(floor, max(0.0, cost_s) / budget)
