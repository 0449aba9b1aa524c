"""What the compare setup shows besides the chart: the sweet spot in words and the runs of
both projects, drawn from the screen's SetupState."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from rich.text import Text
from textual.widgets import DataTable

from perftui.domain.charts.series import short_label
from perftui.domain.compare import Comparison, Side, run_latency, run_marks
from perftui.domain.compare.ranking import THROUGHPUT, Candidate, SweetSpot, cost_with_interval
from perftui.domain.labels import config_labels
from perftui.domain.measurement.context import model_is_int8, precision_run
from perftui.domain.measurement.cost import COST_HEADER, run_price
from perftui.domain.records import Project
from perftui.tui.compare.charts import (
    STYLES,
    SWEET,
    SWEET_STYLE,
    mark_text,
    side_text,
    threshold_text,
)
from perftui.tui.compare.state import SetupState
from perftui.tui.kit import format as fmt
from perftui.tui.kit.fit import distinct, fit_labels
from perftui.tui.kit.tables import CHECKED, UNCHECKED, Cell, fill_table, right

RunKey = tuple[Side, str]
"""A row of the runs table: the side and the run id."""


def sweet_text(state: SetupState, c: Comparison | None) -> Text:
    """The sweet spot in words, and what is missing when a side has nothing to compare."""
    lines: list[Text] = []
    if c is not None and state.threshold_error is None and state.threshold is not None:
        ms = f"{threshold_text(state.threshold)} ms"
        memory = state.max_memory
        memory_limit = f", memory ≤ {threshold_text(memory)} MiB" if memory is not None else ""
        limit = f"{c.stat} latency ≤ {ms}{memory_limit}"
        spot = c.sweet
        if spot is None:
            lines.append(Text(f"No checked run has {limit}; raise a limit or check runs."))
        else:
            lines.append(
                Text.assemble(
                    Text(f"{SWEET} Sweet spot", style=SWEET_STYLE),
                    f" ({c.stat} ≤ {ms}{memory_limit}): ",
                    side_text(spot.side, f"{spot.side} {c.name(spot.side)}", bold=True),
                    f" {short_label(spot.group.config)}{_repeats(spot.best)}"
                    f"  {fmt.fps_ci(spot.throughput_fps, spot.throughput)} items/s at "
                    f"{fmt.ms_ci(spot.latency_ms, spot.latency)} ms{_cost(spot, c.rank)}",
                )
            )
            # each configuration once, with in how many benchmarks it is within noise
            counted = Counter((x.side, x.group.config) for x in spot.within_noise)
            close = [
                Text.assemble(
                    side_text(side, f"{side}"),
                    f" {short_label(config)}" + (f" x{n}" if n > 1 else ""),
                )
                for (side, config), n in counted.items()
            ]
            of = "it" if c.rank == THROUGHPUT else "its cost"
            lines.append(
                Text.assemble(f"  within noise of {of}: ", Text(", ").join(close))
                if close
                else Text(f"  no other checked configuration is within noise of {of}")
            )
    if c is not None:
        for side in Side:
            if c.run(side) is None:
                runs = state.sides[side]
                lines.append(
                    Text.assemble(
                        side_text(side, f"{side} {c.name(side)}", bold=True),
                        ": its runs cannot be read (the database is damaged: perftui doctor)"
                        if runs.unreadable
                        else ": no run checked (space checks one)"
                        if runs.ok_ids(state.stat)
                        else ": no successful run yet; benchmark it (b on Projects)",
                    )
                )
    return Text("\n").join(lines)


def _cost(spot: SweetSpot, rank: str) -> str:
    """The sweet spot's cost when it was ranked by cost."""
    return "" if rank == THROUGHPUT else f", {cost_with_interval(spot.best)} {COST_HEADER}"


def _repeats(found: Candidate) -> str:
    """' x5': the repetitions a configuration's figures combine."""
    return f" x{len(found.group.runs)}" if len(found.group.runs) > 1 else ""


def runs_table(
    state: SetupState,
    c: Comparison | None,
    *,
    wide: bool,
    projects: Mapping[str, Project] | None = None,
) -> tuple[list[tuple[str, str]], list[tuple[RunKey, list[Cell]]]]:
    """Both projects' runs, A's first: check box, project, settings, the precision run (an
    INT8 project told by its notes in `projects` or its profiles), figures with their
    95 % intervals, the cost per million inferences (where a run has a price), verdict mark,
    profile (where a run has one), mark (and the start time when `wide`). Failed runs cannot
    be checked."""
    columns = [
        ("", "check"),
        ("Project" if wide else "", "project"),
        ("Settings", "config"),
        ("Ran", "ran"),
        ("items/s", "fps"),
        (COST_HEADER, "cost"),
        (f"{state.stat} ms", "ms"),
        ("V", "verdict"),
        ("Prof", "prof"),
        ("Mark", "mark"),
    ]
    if wide:
        columns.append(("When UTC", "when"))
    marks = run_marks(c) if c is not None else {}
    rows: list[tuple[RunKey, list[Cell]]] = []
    # narrow: the side's letter alone (the selects above name the projects), so the
    # settings that tell the runs apart keep their room
    names = distinct([state.sides[side].name or "" for side in Side], 14) if wide else ["", ""]
    every = [run for side in Side for run in state.sides[side].runs]
    labels = dict(
        zip(
            (run.id for run in every),
            fit_labels(list(config_labels([run.config for run in every]).labels), 22),
            strict=True,
        )
    )
    for side, name in zip(Side, names, strict=True):
        runs = state.sides[side]
        project = (projects or {}).get(runs.name or "")
        int8 = model_is_int8(runs.runs, project.notes if project else {})
        for run in runs.runs:
            latency = run_latency(run, state.stat)
            ok = latency is not None
            figures = state.figures(run)
            check = CHECKED if run.id in runs.checked else UNCHECKED
            mark = mark_text(marks.get((side, run.id), ""))
            if runs.pinned == run.id:
                mark = f"{mark} pin".strip()
            cells: list[Cell] = [
                check if ok else Text(" - "),
                side_text(side, f"{side} {name}".strip()),
                labels[run.id],
                precision_run([run], int8),
                right(fmt.fps_ci(run.throughput_fps, figures.throughput))
                if ok
                else Text(run.status),
                right(fmt.run_cost_ci(run, figures.throughput)),
                right(fmt.ms_ci(latency, figures.latency.get(state.stat))),
                fmt.verdict_mark(figures.verdict.status) if run.status == "ok" else "",
                "yes" if run.layers else "",
                Text(mark, style=SWEET_STYLE if SWEET in mark else f"bold {STYLES[side]}"),
            ]
            if wide:
                cells.append(fmt.when(run.started_at)[5:])
            rows.append(((side, run.id), cells))
    # Prof only where a run has a profile to pin, the cost where a run has a price
    for key, present in (
        ("prof", any(run.layers for run in every)),
        ("cost", any(run_price(run) is not None for run in every)),
    ):
        if not present:
            at = [k for _, k in columns].index(key)
            columns.pop(at)
            rows = [(row, cells[:at] + cells[at + 1 :]) for row, cells in rows]
    return columns, rows


def fill_runs(
    table: DataTable,
    state: SetupState,
    c: Comparison | None,
    *,
    wide: bool,
    projects: Mapping[str, Project] | None = None,
) -> list[RunKey]:
    """`runs_table` in `table`, fitted to its width (the settings take what the other columns
    leave); the rows' keys, in order."""
    columns, rows = runs_table(state, c, wide=wide, projects=projects)
    keyed = [(f"{side}:{run_id}", cells) for (side, run_id), cells in rows]
    width = table.size.width or table.app.size.width
    fill_table(table, columns, keyed, width=width, height=table.size.height or 8, flex=2)
    return [key for key, _ in rows]
