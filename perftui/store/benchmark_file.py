"""Every benchmark's request (`StoredBenchmark.to_dict()`, oldest first) in one file beside
the database, ``<db>.d/benchmarks/<name>.json`` = ``{"benchmarks": [...]}``, which the
document's ``benchmark_file`` table names: a write that stores runs neither parses nor
writes them (a team's year of them is megabytes). A write that changes them writes a new
file before the document that names it, and the file it replaces is retired
(perftui.store.recovery), as shard files are."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from perftui.domain.records import StoredBenchmark
from perftui.store.layout import malformed
from perftui.store.names import checked_file, read_nofollow

__all__ = ["FOLDER", "TABLE", "Benchmarks", "named", "read"]

FOLDER = "benchmarks"
TABLE = "benchmark_file"


def named(table: dict[str, dict[str, Any]]) -> str | None:
    """The file the document's table names, or None; ValueError if it names one wrongly."""
    docs = list(table.values())
    if not docs:
        return None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise ValueError("the benchmarks file is named more than once")
    return checked_file(docs[0].get("name"))


def read(folder: Path, name: str) -> list[dict[str, Any]]:
    """The benchmark documents of the file; OSError if it cannot be read, ValueError if it
    is not a benchmarks file."""
    try:
        found = json.loads(read_nofollow(folder / checked_file(name)))
    except RecursionError:
        raise ValueError("nested too deeply") from None
    docs = found.get("benchmarks") if isinstance(found, dict) else None
    if not isinstance(docs, list) or not all(isinstance(d, dict) and "id" in d for d in docs):
        raise ValueError("not a list of benchmarks")
    return docs


class Benchmarks:
    """A snapshot's benchmark requests as records, each made once (StoreError naming one
    whose document is malformed)."""

    def __init__(self, docs: list[dict[str, Any]], shown: Path) -> None:
        self.docs = {doc["id"]: doc for doc in docs}
        self.shown = shown
        self.by_project: dict[str, list[str]] = {}
        for benchmark_id, doc in self.docs.items():
            self.by_project.setdefault(doc.get("project_name"), []).append(benchmark_id)
        self._made: dict[str, StoredBenchmark] = {}

    def get(self, benchmark_id: str) -> StoredBenchmark | None:
        made = self._made.get(benchmark_id)
        if made is not None or benchmark_id not in self.docs:
            return made
        try:
            made = StoredBenchmark.from_dict(copy.deepcopy(self.docs[benchmark_id]))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise malformed(self.shown, f"benchmark {benchmark_id}", exc) from None
        self._made[benchmark_id] = made
        return made

    def of(self, project: str) -> list[StoredBenchmark]:
        """The project's requests, oldest first."""
        return [b for b in map(self.get, self.by_project.get(project, [])) if b]

    def last(self, project: str) -> StoredBenchmark | None:
        ids = self.by_project.get(project)
        return self.get(ids[-1]) if ids else None
