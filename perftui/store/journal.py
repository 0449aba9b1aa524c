"""Runs parked beside the database when its lock stayed taken too long.

A measured run is never dropped because another process held the database: it is written
(atomically, under a name of its own, so no lock is needed) to ``<db>.journal/`` and merged
by the next write, which then removes the entry; an entry with a run whose project does not
exist now stays (perftui.store.database_file).
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.domain.records import RunResult
from perftui.store.codec import plain, samples_from_document, samples_to_document
from perftui.store.files import atomic_write_bytes
from perftui.store.names import read_nofollow

if TYPE_CHECKING:
    import numpy as np

    Parked = list[tuple[RunResult, np.ndarray | None]]

__all__ = ["Journal"]


class Journal:
    def __init__(self, target: Path) -> None:
        self.root = target.with_name(target.name + ".journal")

    def park(self, runs: Sequence[tuple[RunResult, np.ndarray | None]]) -> Path:
        """Write the runs (ids assigned) as one entry; its path."""
        entry = {
            "runs": [
                {
                    **plain(run.to_dict()),
                    "latency_samples": None if samples is None else samples_to_document(samples),
                }
                for run, samples in runs
            ]
        }
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / f"{uuid.uuid4().hex}.json"
        atomic_write_bytes(path, json.dumps(entry).encode("utf-8"))
        return path

    def entries(self) -> list[tuple[Path, Parked]]:
        """The parked entries that read back whole (a torn one cannot exist: writes are
        atomic; one that fails to decode is left for a person to look at)."""
        if not self.root.is_dir():
            return []
        found = []
        for path in sorted(self.root.glob("*.json")):
            try:
                entry = json.loads(read_nofollow(path))  # a link is not followed
                runs = [
                    (
                        RunResult.from_dict(doc),
                        samples_from_document(doc["latency_samples"])
                        if doc.get("latency_samples")
                        else None,
                    )
                    for doc in entry["runs"]
                ]
            except (OSError, KeyError, TypeError, ValueError, AttributeError, RecursionError):
                continue
            found.append((path, runs))
        return found

    @staticmethod
    def discard(paths: Sequence[Path]) -> None:
        for path in paths:
            with contextlib.suppress(OSError):
                path.unlink()
