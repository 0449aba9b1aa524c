"""What every sub-command shares: exit statuses, the bad-input error, the store and JSON out."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.processes import Exit as Exit  # the statuses every sub-command returns

if TYPE_CHECKING:
    from perftui.domain.measurement.figures import Known, Samples
    from perftui.domain.records import Project, RunResult
    from perftui.store.database import Store


CommandFactory = Callable[[str, str], argparse.ArgumentParser]
"""`command(name, help)`: a new sub-command's parser (perftui.cli.entry gives it)."""
Command = Callable[[argparse.Namespace], int]
"""A sub-command: parsed arguments in, exit status out."""


class CliError(Exception):
    """Bad input found by the CLI itself."""


def checked_flag(flag: str, check: Callable[[Any], Any], value: Any) -> Any:
    """`check(value)`, its InputError as a CliError naming `flag` (perftui.domain.limits)."""
    from perftui.domain.errors import InputError

    try:
        return check(value)
    except InputError as error:
        raise CliError(f"{flag}: {error}") from None


def positive_seconds(flag: str, text: str, most: float) -> float:
    """`text` as seconds above 0 and up to `most`; CliError naming `flag` otherwise."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= most:  # also refuses nan
        raise CliError(f"{flag}: {text!r} is not a number of seconds above 0 and up to {most:g}")
    return seconds


def output_path(name: str) -> Path:
    """The file `-o NAME` names, checked before any work: its folder exists and it is not
    itself a folder (CliError otherwise; `write_output` reports what the write still meets)."""
    path = Path(name).expanduser()
    if path.is_dir():
        raise CliError(f"cannot write {path}: it is a folder; give a file name")
    if not path.parent.is_dir():
        raise CliError(f"cannot write {path}: folder {path.parent} does not exist")
    return path


def write_output(path: Path, text: str) -> None:
    """Write `text` to `path` (from `output_path`); CliError for what the system refuses."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise CliError(f"cannot write {path}: {error.strerror or error}") from None


def db_path(args: argparse.Namespace) -> Path:
    """--db, else $PERFTUI_DB or the XDG data dir."""
    from perftui.store import default_db_path

    return Path(args.db) if args.db else default_db_path()


def say(line: str) -> None:
    """A note for the person on stderr (a wait for the database, a migration)."""
    print(f"perftui: {line}", file=sys.stderr)


def open_store(args: argparse.Namespace) -> Store:
    from perftui.store import Store

    return Store(db_path(args), notify=say)


def print_json(document: Any) -> None:
    """The document, indented for a terminal and compact for a pipe or a file (as `gh` does):
    json's C encoder writes only compact JSON, three times as fast as the indenting one, which
    took a fifth of `show --json`'s time for a project with profiled runs."""
    indent = 2 if sys.stdout.isatty() else None
    sys.stdout.write(json.dumps(document, indent=indent))  # one write: json.dump makes thousands
    sys.stdout.write("\n")


def run_document(
    project: Project,
    runs: Sequence[RunResult],
    samples: Samples = lambda _id: None,
    known: Known = lambda _run: None,
) -> dict[str, Any]:
    """The bench/show JSON document of the CLI contract. Each run carries its 95 % intervals
    and verdict (domain.measurement.figures: `known`'s, else computed from `samples`) and the
    notes on its measurement context (perftui.domain.measurement.context); "groups" combines the
    repetitions of each configuration."""
    from perftui.bench.environment import environment
    from perftui.domain.measurement.context import (
        model_is_int8,
        ran_precision,
        ran_precisions,
        run_notes,
        runs_notes,
    )
    from perftui.domain.measurement.cost import group_cost, run_cost, runs_price
    from perftui.domain.measurement.figures import PERCENTILES, group_runs

    groups = group_runs(runs, samples, known)
    int8 = model_is_int8(runs, project.notes)
    figures = {
        id(run): found
        for group in groups
        for run, found in zip(group.runs, group.members, strict=True)
    }
    env = next((r.resolved.get("environment") for r in runs if "environment" in r.resolved), None)
    return {
        "project": project.name,
        "model": project.model,
        "engine": project.engine,
        "device": project.device,
        "environment": env or environment(),
        "source_project": project.source_project,
        "notes": project.notes,
        "runs": [
            {
                **run.to_dict(),
                **figures[id(run)].to_dict(),
                "precision_run": ran_precision(run),
                "context_notes": list(run_notes(run, int8)),
                "cost_per_million": run_cost(run),
            }
            for run in runs
        ],
        "groups": [
            {
                "config": group.config.to_dict(),
                "repeats": len(group.runs),
                "run_ids": [run.id for run in group.runs],
                "throughput_fps": group.figures.throughput_fps,
                "price_per_hour": runs_price(group.runs),
                "cost_per_million": group_cost(group),
                "latency_ms": {name: group.latency_ms(name) for name in PERCENTILES},
                **group.figures.to_dict(),
                "precision_run": ran_precisions(group.runs),
                "context_notes": runs_notes(group.runs, int8),
            }
            for group in groups
        ],
    }


SHOWN_NAMES = 8
"""Most project names an error lists (the closest to the name given)."""


def project_names(store: Store, name: str) -> str:
    """The store's project names for an error about `name`: all of a few, else those
    closest to it and how many there are."""
    names = [p.name for p in store.projects()]
    if len(names) <= SHOWN_NAMES:
        return ", ".join(names) or "none yet"
    close = difflib.get_close_matches(name, names, SHOWN_NAMES, 0.0)
    return f"{', '.join(close)}, ... ({len(names)} in all: `perftui projects` lists them)"


def unknown_project(store: Store, name: str) -> CliError:
    """The error for a project name the store does not have, listing the ones it has."""
    return CliError(f"no project named {name!r}; projects: {project_names(store, name)}")
