"""Keys that several screens offer for the same verb (the app does the verb): one binding
each, so they read the same everywhere."""

from __future__ import annotations

from textual.binding import Binding

BENCH = Binding("b", "benchmark", "Bench", id="benchmark")
TUNE = Binding(
    "t",
    "tune",
    "Tune",
    id="tune",
    show=False,
    tooltip="Tune: the most throughput under a latency budget",
)

TARGETS = Binding(
    "g",
    "targets",
    "Targets",
    id="targets",
    show=False,
    tooltip="Targets: this machine and the SSH hosts to measure on",
)


def optimize_key(which: str) -> Binding:
    """INT8 (i): make the INT8 version of `which` ('this project', 'the selected project')."""
    return Binding(
        "i",
        "optimize",
        "INT8",
        id="optimize",
        tooltip=f"Optimize (INT8): make the INT8 version of {which}",
    )
