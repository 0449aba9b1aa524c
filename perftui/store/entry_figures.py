"""Each project's figures (summary, runtime precision and what it is read from, its
configurations' combined figures) in a small file of their own beside the database, which the
project's entry in the main document names (perftui.store.entries): the document keeps a few
names per project, so a write parses and rewrites a few bytes for each project it does not
touch, and a reader parses the figures of the projects it shows alone.

``<db>.d/figures/<uuid>.json`` is ``{"summary", "precision", "precision_source",
"headlines", "best"}`` (perftui.store.headlines). As with shard files (perftui.store.shards),
a file is never changed: a write puts a project's new figures in a new file before committing
the document that names it, and the file it replaces is retired, then removed by a write
after the grace period (perftui.store.recovery). Entries written before kept these fields
themselves, and are read as they are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perftui.store.names import checked_file, read_nofollow

__all__ = ["FIGURES_FIELDS", "figures_folder", "read_figures"]

FIGURES_FIELDS = ("summary", "precision", "precision_source", "headlines", "best")


def figures_folder(payload_root: Path) -> Path:
    return payload_root / "figures"


def read_figures(folder: Path, name: str) -> dict[str, Any] | None:
    """The figures file's fields; None if it is missing or unreadable (the figures are then
    computed from the project's runs, as for an entry that keeps none)."""
    try:
        found = json.loads(read_nofollow(folder / checked_file(name)))
    except (OSError, ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None
