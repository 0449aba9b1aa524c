"""How often a live view may redraw: at most `max_hz` times a second, and less often when the
dashboard's process has used more than `budget` of a core since its last frame.

Pure arithmetic (no textual). The dashboard shares the machine with the benchmark it
watches. What a frame costs is measured as the process's CPU time between frames, not as the
time to build the chart figure: the figure is a fraction of the cost (Textual then turns its
text into segments, lays out and paints the screen, and the follower thread parses the
worker's events), so pacing by the figure alone let the dashboard take 12 % of a core.
"""

from __future__ import annotations

LONGEST_WAIT_S = 10.0
"""A frame waits no longer than this, however dear: a live view that stops moving looks hung."""


def redraw_interval(
    cpu_s: float, max_hz: float, budget: float, longest_s: float = LONGEST_WAIT_S
) -> float:
    """Seconds the next frame waits after the last one, given `cpu_s`, the CPU time the
    process has used since the last frame: long enough that the process used at most
    `budget` (a fraction of one core), at most `max_hz` frames a second, at most
    `longest_s` seconds."""
    floor = 1.0 / max_hz
    if budget <= 0:
        return floor
    return min(max(longest_s, floor), max(floor, max(0.0, cpu_s) / budget))
