"""The older layouts of this pre-release, converted in one place; no other module knows them.

Layout 1 kept every run in the main document with its payloads inline (``"codec"``,
``"data"``: base64 of the same zlib blobs); layout 2 kept every run in the document (tables
``runs``, ``layers`` and ``samples`` of ``{"run_id", "count"}``) with a payload file per run
beside it (``samples/<run id>.f32.z``, ``layers/<run id>.json.z``); layout 3 listed each
project's run ids in its entry (``runs``) and kept its runs as one JSON object of tables
(``runs``, ``samples``, ``layers``); layout 4 kept them as JSON lines with payload counts
(``{"perftui_shard":2}``), its first entries their figures in themselves. `convert` reads
any of them as the current layout, in memory, each payload read from where its layout kept
it (a read never writes); `migrate` has the next write store that conversion, payloads in
packs, with a backup of the old file beside it and the old payload files retired.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.store import benchmark_file
from perftui.store.entries import files_of, mentioned, shard_doc, shard_key
from perftui.store.figure_docs import METHOD
from perftui.store.layout import SCHEMA_VERSION, damaged, doc_key, meta_doc, split_environment
from perftui.store.names import checked_retired, read_nofollow
from perftui.store.payloads import KINDS, Payloads, Ref
from perftui.store.recovery import pending_token, unnamed
from perftui.store.shards import Shard, checked_run

if TYPE_CHECKING:
    from perftui.store.snapshot import Snapshot
    from perftui.store.transaction import Transaction

__all__ = ["Conversion", "convert", "migrate"]

OLD_TABLES = ("runs", *KINDS)
"""The tables layouts 1 and 2 kept runs and payloads in."""
OLD_SUFFIX = {"samples": ".f32.z", "layers": ".json.z"}
"""Layouts 2-4: a payload file per run, ``<kind>/<run id><suffix>``."""
OLD_HEADER = b'{"perftui_shard":2}\n'
"""Layout 4's shard files."""
HELD = Ref(0, "", 0, 0)
FIGURES_FIELDS = ("summary", "precision", "precision_source", "headlines", "best")
"""What layout-4 entries kept in themselves, in a figures file of its own since."""


@dataclass
class Conversion:
    """An older document as the current layout holds it, and the files it names that exist
    in memory alone until the next write stores them."""

    data: dict[str, Any]
    version: int
    """The layout it was written in."""
    shards: dict[str, Shard] = field(default_factory=dict)
    """Shard cache key (perftui.store.entries.shard_key) -> the project's runs."""
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Figures file name -> the figures an entry kept in itself."""
    blobs: dict[tuple[str, str], Callable[[], bytes]] = field(default_factory=dict)
    """(kind, run id) -> how to read the payload where the layout kept it."""
    files: list[tuple[str, str]] = field(default_factory=list)
    """The old payload files, retired once the migration stored them in packs."""
    projects: list[str] = field(default_factory=list)
    """The projects the next write writes anew."""
    benchmarks: list[dict[str, Any]] | None = None
    """The benchmark documents the document kept in itself, oldest first."""

    def into(self, snap: Snapshot) -> None:
        """Have `snap`, read from the converted document, find what this conversion holds
        in memory alone."""
        snap.conversion = self
        snap._shards.update(self.shards)
        snap._figures.update(self.figures)
        if self.benchmarks is not None:
            snap.__dict__["benchmark_list"] = self.benchmarks  # its cached_property, found

    def held(self, payloads: Payloads) -> Payloads:
        """`payloads`, reading a payload an older layout keeps from where it keeps it."""
        return HeldPayloads(payloads, self.blobs)

    def hold(
        self, shard: Shard, kind: str, run_id: str, count: Any, read: Callable[[], bytes]
    ) -> None:
        """Give the run a payload read by `read` until the migration packs it."""
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"{kind} count of run {run_id} is {str(count)[:20]!r}")
        shard.refs[kind][run_id] = HELD._replace(count=count)
        self.blobs[(kind, run_id)] = read

    def hold_file(
        self, shard: Shard, kind: str, run_id: str, count: Any, payloads: Payloads
    ) -> None:
        """Give the run the payload file a layout 2-4 kept."""
        name = run_id + OLD_SUFFIX[kind]
        try:
            checked_retired(kind, name)
        except ValueError:
            raise ValueError(f"run id {run_id[:60]!r} cannot name a file") from None
        self.hold(shard, kind, run_id, count, lambda: read_nofollow(payloads.folder(kind) / name))
        self.files.append((kind, name))


class HeldPayloads(Payloads):
    """The payload folder of an older layout's database: a run's payload not in a pack yet
    (its reference names none) is read from where its layout kept it."""

    def __init__(self, base: Payloads, blobs: dict[tuple[str, str], Callable[[], bytes]]) -> None:
        self.__dict__.update(base.__dict__)
        self.blobs = blobs

    def holds(self, kind: str, run_id: str, ref: Ref, sizes: dict[str, int]) -> bool:
        if ref.pack:
            return super().holds(kind, run_id, ref, sizes)
        try:
            self.read(kind, run_id, ref)
        except ValueError:
            return False
        return True

    def read(self, kind: str, run_id: str, ref: Ref) -> bytes:
        if ref.pack:
            return super().read(kind, run_id, ref)
        try:
            return self.blobs[(kind, run_id)]()
        except KeyError:
            raise ValueError(f"{kind} missing") from None
        except OSError as exc:
            raise ValueError(f"{kind} file missing or unreadable ({exc.strerror or exc})") from None


def convert(data: dict[str, Any], raw: bytes, payloads: Payloads) -> Conversion | None:
    """The document as the current layout (None if it is one); StoreError (damage) if its
    runs cannot be read."""
    meta = list(data.get("meta", {}).values())
    if not meta or meta[0]["schema_version"] >= SCHEMA_VERSION:
        return None
    new = {name: dict(table) for name, table in data.items() if name not in OLD_TABLES}
    new.pop("benchmarks", None)  # in a file of their own since layout 6
    kept = _in_order(data["benchmarks"]) if "benchmarks" in data else None  # up to layout 5
    conv = Conversion(new, meta[0]["schema_version"], benchmarks=kept)
    new["projects"] = _by_name(data, "projects", payloads)
    if conv.version >= 5:  # they differ from this one by their keys (and
        new["shards"] = _by_name(data, "shards", payloads)  # benchmarks)
    else:
        _convert_runs(data, raw, conv, payloads)
    if meta[0].get("named_files") is not True:
        new["unclaimed"] = _unclaimed(new, payloads)
    return conv


def _convert_runs(data: dict[str, Any], raw: bytes, conv: Conversion, payloads: Payloads) -> None:
    """Layouts 1-4: each project's runs in a shard of the current layout, in memory."""
    hashed = hashlib.sha256(raw).digest()

    def made_up(kind: str, project: str) -> str:
        return hashlib.sha256(hashed + kind.encode() + project.encode()).hexdigest()[:32] + ".json"

    def add(project: str, shard: Shard, entry: dict[str, Any]) -> None:
        part = {key: entry[key] for key in FIGURES_FIELDS if key in entry}
        figures = entry.get("figures") if isinstance(entry.get("figures"), str) else None
        if figures is None:
            figures = made_up("figures", project)
            conv.figures[figures] = part
        file = entry.get("file") or made_up("runs", project)
        kept = shard_doc(project, file, len(shard.runs), figures, entry.get("tail", []))
        conv.shards[shard_key(kept)] = shard
        conv.projects.append(project)
        conv.data["shards"][project] = kept

    conv.data["shards"] = {}
    for shard_id, entry in data.get("shards", {}).items():
        add(entry.get("project"), _read_old(entry, shard_id, conv, payloads), entry)
    for project, shard in _runs_in_document(data, conv, payloads).items():
        add(project, shard, {})
    _split_environments(conv)


def _in_order(table: dict[str, Any]) -> list[Any]:
    """A table keyed by counters: its documents, oldest first."""
    return [doc for _, doc in sorted(table.items(), key=lambda kv: doc_key(kv[0]))]


def _by_name(data: dict[str, Any], table: str, payloads: Payloads) -> dict[str, Any]:
    """A table of layouts up to 6, keyed by counters: its documents by their project's
    name, oldest first."""
    field, what = (
        ("name", "project document") if table == "projects" else ("project", "shard document")
    )
    found = {}
    for key, doc in sorted(data.get(table, {}).items(), key=lambda kv: doc_key(kv[0])):
        if not isinstance(doc.get(field), str):
            raise damaged(payloads.shown, f"{what} {key!r} names no project")
        found[doc[field]] = doc
    return found


def _unclaimed(data: dict[str, Any], payloads: Payloads) -> dict[str, dict[str, str]]:
    """The files beside a document of an earlier version that did not name them all (it
    removed superseded ones by age): kept, never removed, since it cannot tell whose; but
    those of a killed write of this version (named with its token), which the next write
    removes (perftui.store.recovery)."""
    retired = data.get("retired", {}).values()
    own = data.get(benchmark_file.TABLE, {}).values()
    named = mentioned(data["shards"].values()) | {
        pair
        for pair in (
            *((doc.get("folder"), doc.get("name")) for doc in retired),
            *((benchmark_file.FOLDER, doc.get("name")) for doc in own),
        )
        if all(isinstance(part, str) for part in pair)  # the others are damage: kept_files
    }
    stray = unnamed(named, payloads)
    token = pending_token(payloads)  # after the listing: a write marks before its files
    kept = [(f, name) for f, name in stray if not (token and name.startswith(token))]
    return {str(n): {"folder": f, "name": name} for n, (f, name) in enumerate(kept, 1)}


def _read_old(entry: dict[str, Any], shard_id: str, conv: Conversion, payloads: Payloads) -> Shard:
    """A layout-3 or layout-4 entry's runs, in either file format."""
    try:
        if not isinstance(entry.get("project"), str):
            raise ValueError("it names no project")
        folder = payloads.folder("runs")
        raw = b"".join(read_nofollow(folder / name) for name in files_of(entry))
        if raw.startswith(OLD_HEADER):
            return _parse_lines(raw[len(OLD_HEADER) :], conv, payloads)
        return _parse_tables(json.loads(raw), conv, payloads)
    except OSError as exc:
        reason = f"runs of shard document {shard_id}: {exc.strerror or exc}"
        raise damaged(payloads.shown, reason) from None
    except (KeyError, TypeError, ValueError, RecursionError) as exc:
        raise damaged(payloads.shown, f"runs of shard document {shard_id}: {exc}") from None


def _parse_lines(raw: bytes, conv: Conversion, payloads: Payloads) -> Shard:
    """A shard as layout 4 wrote it: a run per line with its payloads' counts."""
    shard = Shard()
    for item in json.loads(b"[" + b",".join(raw.splitlines()) + b"]"):
        doc = item["run"]
        run_id = checked_run(doc.get("id") if isinstance(doc, dict) else None, doc)["id"]
        figures = item.get("figures") if item.get("method") == METHOD else None
        shard.add(doc, {}, figures)
        for kind in KINDS:
            if kind in item:
                conv.hold_file(shard, kind, run_id, item[kind], payloads)
    return shard


def _parse_tables(data: dict[str, Any], conv: Conversion, payloads: Payloads) -> Shard:
    """A shard as layout 3 wrote it: one object of tables."""
    runs, counts = data["runs"], {kind: data[kind] for kind in KINDS}
    if not all(isinstance(x, dict) for x in (runs, *counts.values())):
        raise ValueError("not a table of runs")
    stored = data.get("figures")
    figures = {}
    if isinstance(stored, dict) and stored.get("method") == METHOD:
        figures = stored["runs"]
        if not isinstance(figures, dict):
            raise ValueError("not a table of figures")
    for run_id, doc in runs.items():
        checked_run(run_id, doc)
    shard = Shard(runs, None, figures)
    for kind, table in counts.items():
        for run_id, count in table.items():
            if run_id in runs:
                conv.hold_file(shard, kind, run_id, count, payloads)
    return shard


def _runs_in_document(
    data: dict[str, Any], conv: Conversion, payloads: Payloads
) -> dict[str, Shard]:
    """Layouts 1 and 2: each project's runs from the document's tables, layout 1's inline
    payloads as blobs."""
    shown = payloads.shown
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
            count = payload.get("count")
            try:
                if "data" in payload:
                    blob = base64.b64decode(payload["data"], validate=True)
                    conv.hold(shard, kind, run_id, count, lambda blob=blob: blob)
                else:
                    conv.hold_file(shard, kind, run_id, count, payloads)
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


def migrate(tx: Transaction, snap: Snapshot, target: Path) -> tuple[Path | None, int]:
    """Have the write store the snapshot's conversion: the converted projects' shard and
    figures files written anew (the old ones retired), their payloads copied into packs
    (the old payload files retired); the path of the old file's backup (None: no older
    layout) and how many payloads could not be read (left out)."""
    conv = snap.conversion
    if conv is None:
        return None, 0
    lost = 0
    if conv.benchmarks:
        tx.edit_benchmarks()  # written to a file of their own
    for project in conv.projects:
        shard = tx.shard(project)  # its old files are retired by the write
        for kind, table in shard.refs.items():
            for run_id, ref in list(table.items()):
                if ref.pack:
                    continue
                try:
                    blob = snap.payloads.read(kind, run_id, ref)
                except ValueError:
                    lost += 1
                    del table[run_id]
                    continue
                table[run_id] = tx.store_payloads(project, [(kind, blob, ref.count)])[kind]
    now = time.time()
    root = tx.payloads.root
    old = [(k, n) for k, n in conv.files if os.path.lexists(root / k / n)]
    tx.table("retired").insert({"folder": k, "name": n, "at": now} for k, n in old)
    meta = tx.table("meta")
    meta.remove()
    meta.insert([meta_doc()])
    return target.with_name(f"{target.name}.layout{conv.version}.bak"), lost
