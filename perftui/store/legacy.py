"""The older layouts of this pre-release, converted in one place; no other module knows them.

Layout 1 kept every run in the main document with its payloads inline (``"codec"``,
``"data"``: base64 of the same zlib blobs); layout 2 kept every run in the document (tables
``runs``, ``layers`` and ``samples`` of ``{"run_id", "count"}``) with payload files beside
it; layout 3 listed each project's run ids in its entry (``runs``) and kept its runs as one
JSON object of tables (``runs``, ``samples``, ``layers``); the first layout-4 entries kept
their figures in themselves. `convert` reads any of them as the current layout, in memory
(a read never writes); `migrate` has the next write store that conversion, with a backup of
the old file beside it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.store.document import damaged
from perftui.store.entries import files_of, shard_key
from perftui.store.entry_figures import FIGURES_FIELDS
from perftui.store.figure_docs import method
from perftui.store.layout import SCHEMA_VERSION, doc_key, split_environment
from perftui.store.names import read_nofollow
from perftui.store.payloads import KINDS, Payloads
from perftui.store.shards import HEADER, Shard, checked_run

if TYPE_CHECKING:
    from perftui.store.snapshot import Snapshot
    from perftui.store.transaction import Transaction

__all__ = ["Conversion", "convert", "migrate"]

OLD_TABLES = ("runs", *KINDS)
"""The tables layouts 1 and 2 kept runs and payloads in."""


@dataclass
class Conversion:
    """An older document as the current layout holds it, and the files it names that exist
    in memory alone until the next write stores them."""

    data: dict[str, Any]
    shards: dict[str, Shard] = field(default_factory=dict)
    """Shard cache key (perftui.store.entries.shard_key) -> the project's runs."""
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Figures file name -> the figures an entry kept in itself."""
    blobs: dict[tuple[str, str], bytes] = field(default_factory=dict)
    """(kind, run id) -> layout 1's inline payload."""
    projects: list[str] = field(default_factory=list)
    """The projects the next write writes anew."""


def convert(data: dict[str, Any], hashed: bytes, payloads: Payloads) -> Conversion | None:
    """The document as the current layout (None if it is one); StoreError (damage) if its
    runs cannot be read."""
    meta = list(data.get("meta", {}).values())
    entries = data.get("shards", {})
    old_entries = [e for e in entries.values() if "count" not in e or "figures" not in e]
    if not meta or (meta[0]["schema_version"] >= SCHEMA_VERSION and not old_entries):
        return None
    new = {name: dict(table) for name, table in data.items() if name not in OLD_TABLES}
    conv = Conversion(new)
    shown = payloads.shown

    def made_up(kind: str, project: str) -> str:
        return hashlib.sha256(hashed + kind.encode() + project.encode()).hexdigest()[:32] + ".json"

    def add(project: str, shard: Shard, entry: dict[str, Any]) -> None:
        part = {key: entry[key] for key in FIGURES_FIELDS if key in entry}
        figures = entry.get("figures") if isinstance(entry.get("figures"), str) else None
        if figures is None:
            figures = made_up("figures", project)
            conv.figures[figures] = part
        kept = {
            "project": project,
            "file": entry.get("file") or made_up("runs", project),
            "tail": entry.get("tail", []),
            "count": len(shard.runs),
            "figures": figures,
        }
        conv.shards[shard_key(kept)] = shard
        conv.projects.append(project)
        table = new["shards"]
        table[str(max((doc_key(k) for k in table), default=0) + 1)] = kept

    new["shards"] = {k: e for k, e in entries.items() if e not in old_entries}
    for shard_id, entry in entries.items():
        if entry in old_entries:
            add(entry.get("project"), _read_old(entry, shard_id, payloads), entry)
    for project, shard in _runs_in_document(data, conv, shown).items():
        add(project, shard, {})
    _split_environments(conv)
    return conv


def _read_old(entry: dict[str, Any], shard_id: str, payloads: Payloads) -> Shard:
    """A layout-3 (or early layout-4) entry's runs, in either file format."""
    try:
        if not isinstance(entry.get("project"), str):
            raise ValueError("it names no project")
        folder = payloads.folder("runs")
        raw = b"".join(read_nofollow(folder / name) for name in files_of(entry))
        return Shard.parse(raw) if raw.startswith(HEADER) else _parse_tables(json.loads(raw))
    except OSError as exc:
        reason = f"runs of shard document {shard_id}: {exc.strerror or exc}"
        raise damaged(payloads.shown, reason) from None
    except (KeyError, TypeError, ValueError, RecursionError) as exc:
        raise damaged(payloads.shown, f"runs of shard document {shard_id}: {exc}") from None


def _parse_tables(data: dict[str, Any]) -> Shard:
    """A shard as layout 3 wrote it: one object of tables."""
    runs, samples, layers = data["runs"], data["samples"], data["layers"]
    if not all(isinstance(x, dict) for x in (runs, samples, layers)):
        raise ValueError("not a table of runs")
    stored = data.get("figures")
    figures = {}
    if isinstance(stored, dict) and stored.get("method") == method():
        figures = stored["runs"]
        if not isinstance(figures, dict):
            raise ValueError("not a table of figures")
    for run_id, doc in runs.items():
        checked_run(run_id, doc)
    return Shard(runs, samples, layers, figures)


def _runs_in_document(data: dict[str, Any], conv: Conversion, shown: Path) -> dict[str, Shard]:
    """Layouts 1 and 2: each project's runs from the document's tables, layout 1's inline
    payloads as blobs."""
    shards: dict[str, Shard] = {}
    project_of = {}
    for doc_id, doc in sorted(data.get("runs", {}).items(), key=lambda kv: doc_key(kv[0])):
        try:
            checked_run(doc.get("id"), doc)
        except ValueError:
            raise damaged(shown, f"run document {doc_id} lacks id/project/config") from None
        shards.setdefault(doc["project"], Shard()).runs[doc["id"]] = doc
        project_of[doc["id"]] = doc["project"]
    for kind in KINDS:
        for payload in data.get(kind, {}).values():
            if not isinstance(payload, dict):
                continue
            run_id = payload.get("run_id")
            shard = shards.get(project_of.get(run_id, ""))
            if shard is None:
                continue
            shard.counts[kind][run_id] = payload.get("count")
            if "data" in payload:
                try:
                    conv.blobs[(kind, run_id)] = base64.b64decode(payload["data"], validate=True)
                except (TypeError, ValueError) as exc:
                    raise damaged(shown, f"{kind} of run {run_id}: {exc}") from None
    return shards


def _split_environments(conv: Conversion) -> None:
    """Keep each converted run's environment once, by digest, as the current layout does."""
    environments = conv.data.setdefault("environments", {})
    known = {doc.get("id") for doc in environments.values()}
    for shard in conv.shards.values():
        for run_id, doc in list(shard.runs.items()):
            shard.runs[run_id], env = split_environment(doc)
            if env is not None and env["id"] not in known:
                known.add(env["id"])
                key = max((doc_key(k) for k in environments), default=0) + 1
                environments[str(key)] = env


def migrate(tx: Transaction, snap: Snapshot, target: Path) -> Path | None:
    """Have the write store the snapshot's conversion: payload files for inline payloads,
    the converted projects' shard and figures files written anew (the old ones retired);
    the path of the old file's backup, or None (no older layout)."""
    conv = snap.conversion
    if conv is None:
        return None
    tx.files.extend((kind, run_id, blob) for (kind, run_id), blob in conv.blobs.items())
    for project in conv.projects:
        tx.shard(project)  # its old files are retired by the write (perftui.store.recovery)
    if snap.version >= SCHEMA_VERSION:
        return None
    return target.with_name(f"{target.name}.layout{snap.version}.bak")
