"""The document layout of the database: TinyDB tables in one JSON file.

The public identity of a record is its "id" field, a uuid4 hex string, never a TinyDB
document id:

- ``meta``: ``{"schema_version": 6, "created_at", "generator", "named_files": true}``, written
  on the first write; ``named_files`` says the document names every shard and figures file
  beside it (perftui.store.recovery), as documents written before it did not.
- ``projects``: ``Project.to_dict()``, the model as an absolute path.
- ``benchmark_file``: ``{"name"}``, the file of every benchmark's request
  (``StoredBenchmark.to_dict()``: perftui.store.benchmark_file), which a run's write
  neither reads nor writes.
- ``environments``: ``{"id", "environment"}``, one per distinct environment.
- ``shards``: one entry per project with runs (perftui.store.entries): its runs are in a
  file of their own (perftui.store.shards), its summary and runtime precision, kept up to
  date by every write, in a small file it names (perftui.store.entry_figures), so the
  projects list and the home screen read this document and those files alone.
- ``retired``: ``{"folder", "name", "at"}``, a shard, figures, benchmarks or pack file a write
  superseded, removed with its record by a write after the grace period
  (perftui.store.recovery).
- ``unclaimed``: ``{"folder", "name"}``, a file no entry named when this version first wrote
  a document written before ``named_files``; kept, never removed by perftui.

In a shard, a run is ``RunResult.to_dict()`` with ``"layers": null`` and the environment
moved out of ``"resolved"`` (``"environment": <id>``); its latency samples and layer profile
are in its project's pack files (perftui.store.payloads).

Older layouts are read as this one and stored as it by the next write, with a backup of the
old file: perftui.store.legacy, the one module that knows them.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any

from perftui import __version__
from perftui.domain.records import Project, RunResult, StoredBenchmark
from perftui.store.codec import plain

__all__ = [
    "SCHEMA_VERSION",
    "benchmark_doc",
    "doc_key",
    "meta_doc",
    "now_iso",
    "project_doc",
    "run_doc",
    "split_environment",
    "time_key",
]

SCHEMA_VERSION = 6


def now_iso() -> str:
    """The current time, ISO-8601 in UTC to the second, e.g. '2025-01-31T12:00:00+00:00'."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def meta_doc() -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "created_at": now_iso(),
        "generator": f"perftui {__version__}",
        "named_files": True,
    }


def project_doc(project: Project) -> dict[str, Any]:
    return plain(project.to_dict())


def run_doc(run: RunResult) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The run's document and, when it recorded one, its environment's document: the
    environment (CPU, flags, versions: the bulk of a run's text, and the same for thousands
    of runs) is kept once, and the run names it by digest."""
    return split_environment(plain(run.to_dict(with_layers=False)))


def split_environment(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    resolved = doc.get("resolved") or {}
    if "environment" not in resolved:
        return doc, None
    env = resolved["environment"]
    env_id = _env_id(env)
    slim = {k: v for k, v in resolved.items() if k != "environment"}
    return {**doc, "resolved": slim, "environment": env_id}, {"id": env_id, "environment": env}


_last_env: list[Any] = [None, ""]
"""The environment digested last and its id: the runs of a write share one, most often."""


def _env_id(env: Any) -> str:
    if env != _last_env[0]:
        text = json.dumps(env, sort_keys=True, separators=(",", ":")).encode("utf-8")
        _last_env[:] = [env, hashlib.sha256(text).hexdigest()[:24]]
    return _last_env[1]


def benchmark_doc(benchmark: StoredBenchmark) -> dict[str, Any]:
    return plain(benchmark.to_dict())


def time_key(stamp: str) -> float:
    """An ISO-8601 time stamp as a sort key (naive means UTC; unreadable sorts first)."""
    if not stamp:
        return float("-inf")
    text = stamp[:-1] + "+00:00" if stamp.endswith(("Z", "z")) else stamp
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return float("-inf")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def doc_key(doc_id: str) -> int:
    """A TinyDB document id as a sort key (insertion order)."""
    try:
        return int(doc_id)
    except ValueError:
        return 0
