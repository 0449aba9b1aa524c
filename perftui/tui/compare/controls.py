"""The compare setup's controls: the two projects on one row, the limits that find the sweet
spot on the next (latency threshold and statistic, an optional memory limit)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Label, Select

from perftui.domain.compare import Side
from perftui.domain.measurement.statistic import LATENCY_NAMES
from perftui.tui.kit.fit import distinct


def setup_controls(projects: list[str]) -> ComposeResult:
    """The rows of controls, composed into the setup screen."""
    with Horizontal(id="cmp-controls"):
        for side in Side:
            yield Label(side.value, classes=f"cmp-label side-{side.value.lower()}")
            yield Select[str](
                [(name, name) for name in projects],
                id=f"cmp-{side.value.lower()}",
                compact=True,
                prompt=f"project {side}",
                allow_blank=not projects,
            )
    with Horizontal(id="cmp-limits"):
        yield Label("latency ≤", classes="cmp-label")
        yield Input(id="cmp-threshold", compact=True, placeholder="ms", select_on_focus=True)
        yield Label("ms", classes="cmp-label")
        yield Select[str](
            [(s, s) for s in LATENCY_NAMES],
            id="cmp-stat",
            compact=True,
            allow_blank=False,
            value="median",
        )
        yield Label("memory ≤", classes="cmp-label")
        yield Input(id="cmp-memory", compact=True, placeholder="any", select_on_focus=True)
        yield Label("MiB", classes="cmp-label")


def project_options(names: list[str], room: int) -> list[tuple[str, str]]:
    """The A and B selects' options: the names cut to `room` cells, still told apart."""
    return list(zip(distinct(names, room) if room > 0 else names, names, strict=True))
