"""The document layout of the database: tables of documents in one JSON object, ``{"table":
{key: {...}}}``. A project and its entry are keyed by the project's name; the other tables'
keys are counters (1, 2, ...: insertion order), and a record's public identity is its "id"
field, a uuid4 hex string, never its key:

- ``meta``: ``{"schema_version": 7, "created_at", "generator"}``, written on the first write.
- ``projects``: ``Project.to_dict()`` by project name, the model as an absolute path.
- ``benchmark_file``: ``{"name"}``, the file of every benchmark's request
  (``StoredBenchmark.to_dict()``: perftui.store.benchmark_file), which a run's write
  neither reads nor writes.
- ``environments``: ``{"id", "environment"}``, one per distinct environment.
- ``shards``: by project name, an entry per project with runs (perftui.store.entries): its
  runs are in a file of their own (perftui.store.shards), its summary and runtime precision,
  kept up to date by every write, in a small file it names (perftui.store.entries), so the
  projects list and the home screen read this document and those files alone.
- ``retired``: ``{"folder", "name", "at"}``, a shard, figures, benchmarks or pack file a write
  superseded, removed with its record by a write after the grace period
  (perftui.store.recovery).
- ``unclaimed``: ``{"folder", "name"}``, a file an older layout's document did not name when
  it was converted (perftui.store.legacy); kept, never removed by perftui.

The two tables keyed by project name are written a record per line (perftui.store.document).

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
from itertools import repeat
from pathlib import Path
from typing import Any

from perftui import __version__
from perftui.domain.errors import StoreError
from perftui.domain.records import RunResult
from perftui.store.codec import plain
from perftui.store.document import LINED, Check, LineTable, split

__all__ = [
    "SCHEMA_VERSION",
    "committed",
    "damaged",
    "doc_key",
    "lined_tables",
    "malformed",
    "meta_doc",
    "now_iso",
    "parse",
    "record_check",
    "run_doc",
    "split_environment",
    "time_key",
]

SCHEMA_VERSION = 7


def now_iso() -> str:
    """The current time, ISO-8601 in UTC to the second, e.g. '2025-01-31T12:00:00+00:00'."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def meta_doc() -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "created_at": now_iso(),
        "generator": f"perftui {__version__}",
    }


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
    """A counter key as a sort key (insertion order)."""
    try:
        return int(doc_id)
    except ValueError:
        return 0


def damaged(path: Path, reason: str) -> StoreError:
    return StoreError(
        f"database {path} is damaged ({reason}); it was left untouched"
        " — move it aside or use --db PATH"
    )


def malformed(shown: Path, what: str, exc: Exception) -> StoreError:
    return damaged(shown, f"{what} is malformed ({type(exc).__name__}: {exc})")


def parse(raw: bytes, shown: Path, *, lined: bool = False) -> dict[str, Any]:
    """The tables of the file's bytes; StoreError if they are not a perftui database. A
    `lined` document (its write stamped these bytes: perftui.store.recovery) has its
    projects and entries read as they are asked for (perftui.store.document); those of
    another are parsed whole (`lined_tables` checks them)."""
    if not raw.strip():
        return {}  # an empty file holds nothing to lose
    pieces = _split(raw, shown, record_check(shown)) if lined else None
    data = _tables(pieces[0] if pieces else raw, shown)
    for name, table in data.items():
        if not isinstance(table, dict) or not all(map(isinstance, table.values(), repeat(dict))):
            raise damaged(shown, f"table {name!r} is not a table of documents")
    meta = list(data.get("meta", {}).values())
    if not meta:
        if any(data.values()) or (pieces and any(map(len, pieces[1].values()))):
            raise StoreError(
                f"database {shown} is not a perftui database (no schema version);"
                " it was left untouched — use --db PATH"
            )
        return data
    version = meta[0].get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise damaged(shown, f"bad schema version {version!r}")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"database {shown} was written by a newer perftui (schema {version}; this version"
            f" reads schema {SCHEMA_VERSION}); it was left untouched"
            " — upgrade perftui or use --db PATH"
        )
    return {**data, **pieces[1]} if pieces else data


def committed(raw: bytes, data: dict[str, Any], shown: Path) -> dict[str, Any]:
    """The tables of the document `raw` this process just wrote from `data`: the others as
    they are, those keyed by project name read anew from the bytes."""
    pieces = _split(raw, shown, record_check(shown))
    assert pieces is not None  # perftui.store.document.dump wrote it
    return {**{name: t for name, t in data.items() if name not in LINED}, **pieces[1]}


def _split(raw: bytes, shown: Path, check: Check) -> tuple[bytes, dict[str, LineTable]] | None:
    """perftui.store.document.split, a line that is not JSON reported as damage."""
    return split(raw, check, lambda text, what: _loads(text, shown, what))


def lined_tables(data: dict[str, Any], check: Check) -> dict[str, Any]:
    """`data` with its tables keyed by project name read as perftui.store.document's (every
    record of those parsed already checked)."""
    found = {name: data.get(name, {}) for name in LINED}
    return {
        **data,
        **{
            name: table if isinstance(table, LineTable) else LineTable.of(name, table, check)
            for name, table in found.items()
        },
    }


def record_check(shown: Path) -> Check:
    """What a record of the tables keyed by project name must be (damage otherwise): a
    project names its name (its key), model and engine; an entry its project (its key), its
    file and its run count."""

    def check(table: str, key: object, doc: Any) -> dict[str, Any]:
        if not isinstance(doc, dict):
            raise damaged(shown, f"table {table!r} is not a table of documents")
        if table == "projects":
            named = (doc.get("name"), doc.get("model"), doc.get("engine"))
            if doc.get("name") != key or not all(isinstance(value, str) for value in named):
                raise damaged(shown, f"project document {key!r} lacks name/model/engine")
        elif doc.get("project") != key or not (isinstance(doc.get("file"), str) and "count" in doc):
            raise damaged(shown, f"shard document {key!r} lacks project/file/count")
        return doc

    return check


def _loads(raw: bytes, shown: Path, what: str = "") -> Any:
    """The JSON value of the bytes (the document's, or `what` of it: one of its lines);
    damage if they hold none."""
    said = f"{what}: " if what else ""
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise damaged(shown, f"{said}not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}" if what else f"line {exc.lineno}, column {exc.colno}"
        raise damaged(shown, f"{said}{exc.msg} at {where}") from None
    except RecursionError:
        raise damaged(shown, f"{said}nested too deeply") from None


def _tables(raw: bytes, shown: Path) -> dict[str, Any]:
    data = _loads(raw, shown)
    if not isinstance(data, dict):
        raise damaged(shown, "the top level is not a JSON object")
    return data
