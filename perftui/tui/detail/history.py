"""The History tab of the project detail: the selected run's configuration across all the
project's benchmarks over time (domain.regression.history, as `perftui history` shows it), and
the newest stored gate's verdict (domain.regression.gate_stored, as `perftui gate` judged it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from perftui.domain.measurement.figures import group_runs
from perftui.domain.regression.gate_stored import (
    StoredGate,
    latest_gate_label,
    run_label,
    stored_gate,
)
from perftui.domain.regression.history import history
from perftui.engines import capabilities
from perftui.tui.detail.state import DetailState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape
from perftui.tui.kit.tables import Cell, RowTable, fill_table, right
from perftui.tui.kit.tabs import Pane

if TYPE_CHECKING:
    from perftui.domain.records import RunResult
    from perftui.store import Store

COLUMNS = (
    ("When", "when"),
    ("items/s (95 %)", "fps"),
    ("Runs", "runs"),
    ("Verdict", "verdict"),
    ("Changed", "changed"),
)


def find_gate(store: Store, name: str, runs: list[RunResult]) -> tuple[StoredGate, str] | None:
    """The project's newest stored gate judged again, and the other side's project name;
    None where the project has no gate or the other side is gone."""
    label = latest_gate_label(runs)
    if not label:
        return None
    for project in store.projects():
        if project.name == name:
            continue
        other = store.runs(project.name)
        if any(run_label(run) == label for run in other):
            found = stored_gate(label, runs, other)
            return (found, project.name) if found is not None else None
    return None


def gate_text(d: DetailState) -> str:
    """The newest gate in one line or two: its verdict, this project's role, B/A."""
    if d.gate is None:
        return "[dim]No gate yet: `perftui gate BASELINE CANDIDATE` stores one.[/]"
    found, other = d.gate
    decision = found.decision
    baseline = found.baseline_runs[0].project == d.project.name
    role = f"the baseline for {other}" if baseline else f"the candidate against {other}"
    stats = "; ".join(
        f"{v.stat} B/A {v.ratio:.3f} ({v.lo:.3f}-{v.hi:.3f})"
        for v in decision.stats
        if v.ratio is not None and v.lo is not None and v.hi is not None
    )
    return (
        f"[b]Gate[/] {fmt.when(found.started_at)}: [b]{decision.outcome.upper()}[/] at "
        f"{decision.max_slowdown * 100:g} % slower, {decision.rounds} rounds, this project "
        f"{escape(role)}: {escape(stats) or 'no pairs'}"
    )


class HistoryPane(Pane[DetailState]):
    def compose(self) -> ComposeResult:
        yield Static("", id="history-gate", classes="pane-head")
        yield Static("", id="history-head", classes="pane-head")
        yield RowTable(id="history")
        with VerticalScroll(id="history-steps-box"):
            yield Static("", id="history-steps")

    def populate(self) -> None:
        d = self.state
        self.query_one("#history-gate", Static).update(gate_text(d))
        head = self.query_one("#history-head", Static)
        steps = self.query_one("#history-steps", Static)
        table = self.query_one("#history", DataTable)
        run = d.selected
        if run is None:
            head.update("No runs yet: press [b]b[/] to benchmark this project.")
            steps.update("")
            fill_table(table, COLUMNS, [])
            return
        mine = [r for r in d.runs if r.config == run.config]
        found = history(group_runs(mine, d.samples, d.figures), run.config, "throughput",
                        capabilities(d.project.engine))  # fmt: skip
        head.update(
            f"[b]{escape(run.config.label())}[/] over time: {len(found.points)} benchmark(s) "
            "[dim](the configuration of the run selected in Runs)[/]"
        )
        rows: list[tuple[str | None, list[Cell]]] = []
        for point in reversed(found.points):
            interval = (
                f" ({fmt.fps(point.lo)}-{fmt.fps(point.hi)})" if point.lo and point.hi else " ±?"
            )
            rows.append(
                (
                    point.benchmark_id or None,
                    [
                        fmt.when(point.date),
                        right(fmt.fps(point.value) + interval),
                        right(str(point.runs)),
                        fmt.verdict_word(point.verdict.status),
                        "; ".join(point.changes),
                    ],
                )
            )
        width = table.size.width or self.app.size.width
        fill_table(table, COLUMNS, rows, width=width, height=table.size.height or 8, flex=3)
        if found.steps:
            text = "\n".join(escape(step.text("throughput")) for step in found.steps)
        elif len(found.points) < 4:
            text = "[dim]Change points need four benchmarks of this configuration at least.[/]"
        else:
            text = "No change point: no step in the series beyond its noise."
        steps.update(text)
