"""The Environment tab of the Model Performance Summary: the machines and software A's and B's
compared runs were measured on, side by side (two targets, two engine versions, ...)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from perftui.domain.compare import Side
from perftui.domain.compare.environments import environment_rows
from perftui.tui.compare.state import SummaryState
from perftui.tui.kit.fit import cut
from perftui.tui.kit.tables import SCROLLBAR, RowTable, fill_table
from perftui.tui.kit.tabs import Pane

DIFFERS = "≠"
LABEL_CELLS = 9
PADDING = 2
"""A DataTable column's padding, one cell on each side."""
SAME_MACHINE = "A and B ran on the same machine and software."
OTHER_MACHINES = (
    "A and B ran on different machines or software (≠): their figures compare the machines "
    "as well as the models."
)


class EnvironmentPane(Pane[SummaryState]):
    def compose(self) -> ComposeResult:
        yield Static("", id="env-head", classes="pane-head")
        yield RowTable(id="cmp-env")

    def populate(self) -> None:
        c = self.state.comparison
        envs = [(run.resolved.get("environment") or {}) if run else {} for run in (c.a, c.b)]
        rows = environment_rows(*envs)
        width = self.size.width or self.app.size.width
        room = max(8, (width - 1 - LABEL_CELLS - 4 * PADDING - SCROLLBAR) // 2)
        columns = [
            ("", "mark"),
            ("", "label"),
            *[(cut(f"{side} {c.name(side)}", room), str(side)) for side in Side],
        ]
        cells = [
            (
                row.label,
                [DIFFERS if row.differs else " ", row.label, cut(row.a, room), cut(row.b, room)],
            )
            for row in rows
        ]
        fill_table(self.query_one("#cmp-env", RowTable), columns, cells)
        differs = any(row.differs for row in rows)
        self.query_one("#env-head", Static).update(OTHER_MACHINES if differs else SAME_MACHINE)
