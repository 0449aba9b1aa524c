"""The lines under the projects table for the highlighted project: which configuration each
headline figure is of, and how it is linked to its INT8 versions or its source."""

from __future__ import annotations

from collections.abc import Sequence

from perftui.domain.charts.series import short_label
from perftui.domain.measurement.summary import Headline
from perftui.domain.records import Project
from perftui.optimize.notes import derived_projects, optimization_of
from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape


def best_line(name: str, best: Headline | None, fps: str, least: Headline | None, ms: str) -> str:
    """'enc: most items/s at b2 async seq=32 (2 runs, INVALID): 11,853 ±67%; least median
    ms at b1 seq=32 (2 runs, noisy): 0.135 ±9%', with the figures as the table shows them
    (`fps`, `ms`)."""
    if best is None and least is None:
        return f"[dim]{escape(name)}: no successful run yet[/]"
    parts = []
    if best is not None:
        parts.append(f"most items/s at {_where(best)}: {fps}")
    if least is not None:
        parts.append(f"least median ms at {_where(least)}: {ms}")
    return f"{escape(name)}: " + "; ".join(escape(part) for part in parts)


def _where(found: Headline) -> str:
    runs = f"{found.runs} runs" if found.runs != 1 else "1 run"
    return f"{short_label(found.config)} ({runs}, {fmt.verdict_word(found.figures.verdict.status)})"


def link_line(project: Project, projects: Sequence[Project]) -> str:
    """How `project` is linked: INT8 of its source (with the accuracy check), or the source
    of INT8 versions."""
    text = ""
    opt = optimization_of(project)
    if project.source_project:
        kind = f"{opt.method} INT8 of" if opt else "made from"
        text = f"{escape(project.name)}: {kind} {escape(project.source_project)}"
        if opt is not None and opt.accuracy is not None:
            text += f", cosine {escape(opt.accuracy.cosine_text())}"
            if opt.accuracy.top1_agreement is not None:
                text += f", top-1 {100 * opt.accuracy.top1_agreement:.0f}%"
        if opt is not None and opt.random:
            text += " (random data)"
    derived = derived_projects(project.name, list(projects))
    if derived:
        text += "; " if text else f"{escape(project.name)}: "
        text += f"INT8 versions: {escape(', '.join(derived))}"
    return text or f"[dim]{escape(project.name)}: no INT8 link[/]"
