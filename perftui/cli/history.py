"""`perftui history PROJECT [--config LABEL]`: one configuration's figure across all its
benchmarks over time, the environment changes between points, and the change points
(perftui.domain.regression.history)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    open_store,
    print_json,
    unknown_project,
)

if TYPE_CHECKING:
    from perftui.domain.measurement.figures import ConfigGroup
    from perftui.domain.records import RunConfig
    from perftui.domain.regression.history import History


def add_parsers(command: CommandFactory) -> None:
    history = command("history", "one configuration's figure over time, and its change points")
    history.add_argument("project")
    history.add_argument(
        "--config",
        metavar="LABEL",
        help="the configuration, by its label or a unique part of it ('b1 t:1', 'seq=128'); "
        "default: the one measured in the most benchmarks",
    )
    history.add_argument("--stat", default="throughput", help="throughput | median | p90 | p99")
    history.add_argument("--json", action="store_true")


def pick_config(measured: list[tuple[RunConfig, int]], wanted: str | None) -> RunConfig:
    """The configuration `--config` names (its label, else the one label that has all its
    words: 'b1 t1' is not 'b1 t16'), else the most measured; CliError naming the labels
    otherwise."""
    if not measured:
        raise CliError("the project has no successful run: nothing to follow over time")
    if wanted is None:
        return measured[0][0]
    labels = {config.label(): config for config, _ in measured}
    if wanted in labels:
        return labels[wanted]
    words = set(wanted.split())
    matches = [label for label in labels if words <= set(label.split())]
    if len(matches) == 1:
        return labels[matches[0]]
    what = "matches several configurations" if matches else "matches no configuration"
    raise CliError(f"--config {wanted!r} {what}; measured: {'; '.join(sorted(labels))}")


def cmd_history(args: argparse.Namespace) -> int:
    from perftui.domain.forms import options
    from perftui.domain.measurement.figures import group_runs
    from perftui.domain.measurement.statistic import NAMES
    from perftui.domain.regression.history import configurations, history
    from perftui.engines import capabilities

    stat = options.parse_choices(args.stat, "statistic", NAMES)[0]
    store = open_store(args)
    project = store.get_project(args.project)
    if project is None:
        raise unknown_project(store, args.project)
    groups: list[ConfigGroup] = group_runs(
        store.runs(project.name),
        lambda r: store.latency_samples(r.id),
        lambda r: store.figures(r.id),
    )
    config = pick_config(configurations(groups), args.config)
    found = history(groups, config, stat, capabilities(project.engine))
    if args.json:
        print_json(history_document(project.name, found))
    else:
        print(history_text(project.name, found))
    return Exit.OK


def history_text(project: str, found: History) -> str:
    from perftui.domain.measurement.statistic import statistic
    from perftui.domain.measurement.verdict import STABLE

    unit = statistic(found.stat).unit
    lines = [f"{project}: {found.stat} of {found.config.label()}, {len(found.points)} points"]
    for point in found.points:
        interval = f"({point.lo:.4g}-{point.hi:.4g})" if point.lo and point.hi else "(±?)"
        line = f"  {point.date[:16].replace('T', ' ')}  {point.value:.4g} {unit} {interval}"
        line += f"  {point.runs} run{'s' if point.runs != 1 else ''}  {point.verdict.status}"
        if point.changes:
            line += "  changed: " + "; ".join(point.changes)
        lines.append(line)
        if point.verdict.status != STABLE and point.verdict.reasons:
            lines.append(f"    {point.verdict.status}: " + "; ".join(point.verdict.reasons))
    if found.steps:
        lines += ["change points:", *(f"  {step.text(found.stat)}" for step in found.steps)]
    elif len(found.points) >= 3:
        lines.append("no change point: no step in the series beyond its noise")
    else:
        lines.append("too few points to find a change point (three at least)")
    return "\n".join(lines)


def history_document(project: str, found: History) -> dict[str, Any]:
    return {
        "project": project,
        "config": found.config.to_dict(),
        "config_label": found.config.label(),
        "stat": found.stat,
        "points": [
            {
                "date": p.date,
                "value": p.value,
                "interval": [p.lo, p.hi],
                "runs": p.runs,
                "benchmark_id": p.benchmark_id,
                "verdict": p.verdict.status,
                "reasons": list(p.verdict.reasons),
                "changes": list(p.changes),
            }
            for p in found.points
        ],
        "change_points": [
            {
                "before": s.before.date,
                "after": s.after.date,
                "ratio": s.ratio,
                "interval": [s.lo, s.hi],
                "changes": list(s.changes),
                "text": s.text(found.stat),
            }
            for s in found.steps
        ],
    }


COMMANDS: dict[str, Command] = {"history": cmd_history}
