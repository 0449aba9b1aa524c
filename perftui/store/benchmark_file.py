"""Every benchmark's request (`StoredBenchmark.to_dict()`, oldest first) in one file beside
the database, ``<db>.d/benchmarks/<name>.json`` = ``{"benchmarks": [...]}``, which the
document's ``benchmark_file`` table names: a write that stores runs neither parses nor
writes them (a team's year of them is megabytes). A write that changes them writes a new
file before the document that names it, and the file it replaces is retired
(perftui.store.recovery), as shard files are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perftui.store.names import checked_file, read_nofollow

__all__ = ["FOLDER", "TABLE", "blob", "named", "read"]

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


def blob(docs: list[dict[str, Any]]) -> bytes:
    return json.dumps({"benchmarks": docs}, ensure_ascii=False, separators=(",", ":")).encode()
