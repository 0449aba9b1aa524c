"""One write to the database: the document's tables, edited in memory (``{"table": {key:
{...}}}``: a table is copied when the write first edits it, and an edited document is
replaced by a new one, so the snapshot's stay shared and unchanged), the
shards it edits, the pack files its runs' payloads go to as they come (perftui.store.payloads)
and the benchmarks it edits; perftui.store.database_file takes the lock, runs it and commits.

At the commit a project whose runs were only added gets a segment of them beside its shard
file (taking in the smaller files before it: `TAKEN_IN`) and its figures extended
(perftui.store.entries), parsing none of its stored runs; any other edit writes its file
whole. Either way its figures go to a new figures file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import StoreError
from perftui.domain.records import LayerProfile, RunResult
from perftui.store.codec import dump_json, layers_from_blob
from perftui.store.document import LINED, LineTable
from perftui.store.entries import (
    ProjectFigures,
    appended_figures,
    files_of,
    project_figures,
    run_count,
    shard_doc,
)
from perftui.store.layout import doc_key
from perftui.store.names import read_nofollow
from perftui.store.payloads import Pack, Payloads, Ref
from perftui.store.shards import HEADER, Shard, line, write_shard
from perftui.store.snapshot import Snapshot

if TYPE_CHECKING:
    Pending = tuple[dict[str, Any], dict[str, Ref], dict[str, Any] | None]
    """A run added by a write: its document, payloads and figures."""

__all__ = [
    "OPEN_PACKS",
    "TAKEN_IN",
    "Table",
    "Tables",
    "Transaction",
    "cannot_write",
    "write_shards",
]


Doc = dict[str, Any]


class Tables:
    """The tables of one write; `dirty` once any of them changed."""

    def __init__(self, data: dict[str, dict[str, Doc]]) -> None:
        self.data = dict(data)
        self.dirty = False
        self._copied: set[str] = set()

    def table(self, name: str) -> Table:
        return Table(self, name)

    def _edit(self, name: str) -> MutableMapping[str, Doc]:
        """The table's documents by key, to edit (copied once per write)."""
        if name not in self._copied:
            table = self.data.get(name, {})
            if isinstance(table, LineTable):
                self.data[name] = table.copy()
            else:
                self.data[name] = LineTable.of(name, table) if name in LINED else dict(table)
            self._copied.add(name)
        self.dirty = True
        return self.data[name]

    def changed(self, name: str) -> set[str]:
        """The keys of the documents this write put into or removed from a table keyed by
        project name (perftui.store.document)."""
        table = self.data.get(name)
        return table.changed() if name in self._copied and isinstance(table, LineTable) else set()


class Table:
    """One table of a write, edited through its `Tables`."""

    def __init__(self, tables: Tables, name: str) -> None:
        self._tables = tables
        self.name = name

    def all(self) -> list[Doc]:
        """The documents, oldest first."""
        docs = self._tables.data.get(self.name, {})
        return [docs[key] for key in sorted(docs, key=doc_key)]

    def get(self, key: str) -> Doc | None:
        """The document of that key (a project's name in a table keyed by it), or None."""
        return self._tables.data.get(self.name, {}).get(key)

    def put(self, key: str, doc: Doc) -> None:
        """Store the document under that key, in place of any it had."""
        self._tables._edit(self.name)[key] = doc

    def drop(self, key: str) -> bool:
        """Remove the document of that key; whether there was one."""
        if self.get(key) is None:
            return False
        del self._tables._edit(self.name)[key]
        return True

    def insert(self, docs: Iterable[Doc]) -> None:
        """Add the documents, each under the next free id."""
        table = self._tables._edit(self.name)
        first = max(map(doc_key, table), default=0) + 1
        for doc_id, doc in enumerate(docs, start=first):
            table[str(doc_id)] = dict(doc)

    def update(self, fields: Doc, test: Callable[[Doc], bool]) -> None:
        """Give the documents that pass `test` these fields (as new documents)."""
        table = self._tables._edit(self.name)
        for key, doc in list(table.items()):
            if test(doc):
                table[key] = {**doc, **fields}

    def remove(self, test: Callable[[Doc], bool] = lambda doc: True) -> int:
        """Remove the documents that pass `test` (all of them by default); how many."""
        table = self._tables._edit(self.name)
        gone = [key for key, doc in table.items() if test(doc)]
        for key in gone:
            del table[key]
        return len(gone)


class Transaction:
    """One write: the document's tables, the shards it edits and the pack files it adds
    (written as runs come, synced before the document commits)."""

    def __init__(self, snap: Snapshot, payloads: Payloads) -> None:
        self.tables = Tables(snap.data)
        self.snap = snap
        self.payloads = payloads
        self.packs: dict[str, Pack] = {}
        """Project name -> the pack file its runs' payloads go to."""
        self._open: dict[str, Pack] = {}
        """The packs open, the least recently written to first (`OPEN_PACKS` at most)."""
        self.merged: list[Path] = []
        self.shards: dict[str, Shard] = {}
        """Project name -> its runs as this write leaves them."""
        self.added: set[str] = set()
        self.token = ""
        """What the names of the files it writes start with (its mark, written before the
        first of them: perftui.store.recovery)."""
        self.appended: dict[str, list[RunResult]] = {}
        """Project name -> the runs this write adds to it (their figures extend the stored),
        the newest profiled one alone with its layers (PrecisionSource.extend)."""
        self._profiled: dict[str, tuple[int, Ref]] = {}
        """Project name -> where in `appended` its newest profiled run is, and its layers."""
        self.benchmarks: list[dict[str, Any]] | None = None
        """The benchmark documents as this write leaves them, once it edits them
        (`edit_benchmarks`; written to a new file at the commit: perftui.store.benchmark_file)."""
        self.lines: dict[str, list[Pending]] = {}
        """Project name -> the runs added to a project whose shard this write does not
        otherwise edit (appended to its file at the commit: `write_shards`)."""
        self.settled: dict[str, ProjectFigures] = {}
        """Project name -> its figures, computed before the commit (`settle`)."""

    def table(self, name: str) -> Table:
        return self.tables.table(name)

    def edit_benchmarks(self) -> list[dict[str, Any]]:
        """The benchmark documents, to edit (a new list; the documents themselves are never
        changed in place: replace one to change it)."""
        if self.benchmarks is None:
            self.benchmarks = list(self.snap.benchmark_list)
        return self.benchmarks

    def mark(self) -> str:
        """The write's token, marking the folder first if it is not yet (perftui.store.
        recovery)."""
        if not self.token:
            self.token = self.payloads.begin()
        return self.token

    def store_payloads(
        self, project: str, blobs: Sequence[tuple[str, bytes, int]]
    ) -> dict[str, Ref]:
        """Append a run's (kind, blob, count) payloads to the project's pack; where they are."""
        if not blobs:
            return {}
        try:
            pack = self.packs.get(project)
            if pack is None:
                pack = self.packs[project] = self.payloads.open_pack(self.mark())
            self._open.pop(project, None)
            self._open[project] = pack
            if len(self._open) > OPEN_PACKS:  # the least recently written to, closed
                self._open.pop(next(iter(self._open))).close(durable=False)
            return {kind: pack.add(blob, count) for kind, blob, count in blobs}
        except OSError as exc:
            raise cannot_write(self.payloads.shown, exc) from None

    def shard(self, project: str) -> Shard:
        """The project's runs, to edit (written at the commit), with those added so far (its
        settled figures let go)."""
        self.settled.pop(project, None)
        if project not in self.shards:
            stored = self.snap.shard(project)
            shard = self.shards[project] = stored.copy() if stored is not None else Shard()
            for item in self.lines.pop(project, []):
                shard.add(*item)
        return self.shards[project]

    def add(self, run: RunResult, item: Pending) -> None:
        """Add a stored run (without its layers) and its (document, payloads, figures) to its
        project."""
        self.settled.pop(run.project, None)
        if run.project in self.shards:
            self.shards[run.project].add(*item)
        else:
            self.lines.setdefault(run.project, []).append(item)
        runs = self.appended.setdefault(run.project, [])
        ref = item[1].get("layers")
        if ref is not None and ref.count:  # the newest profile names the project's precision
            kept = self._profiled.get(run.project)
            if kept is None or (runs[kept[0]].started_at or "") <= (run.started_at or ""):
                self._profiled[run.project] = (len(runs), ref)
        runs.append(run)

    def with_profiles(self) -> None:
        """Give each project's newest profiled run of this write its layers, read back from
        its pack: the project's precision is read from them (a settled project has none
        here: `settle` gave them to its figures)."""
        for project in self._profiled:
            self.appended[project] = self._layered(project)

    def _layered(self, project: str) -> list[RunResult]:
        """A copy of the project's runs of this write, its newest profiled one with its
        layers."""
        runs = list(self.appended[project])
        found = self._profiled.get(project)
        if found is not None:
            index, ref = found
            try:
                blob = self.payloads.read("layers", runs[index].id, ref)
            except ValueError as exc:  # the pack this write is writing
                raise cannot_write(self.payloads.shown, OSError(str(exc))) from None
            rows = layers_from_blob(blob, ref.count)
            runs[index] = replace(runs[index], layers=tuple(map(LayerProfile.from_dict, rows)))
        return runs

    def settle(self, project: str) -> None:
        """Compute now the figures of a project without stored runs once all its runs of
        this write have come (an import's, while its workers prepare the next project's),
        and let its records go: the commit takes the figures unless the project's runs are
        edited since (`add`, `shard`), and then computes them from its runs as stored."""
        if project in self.snap.entries or project not in self.lines:
            return
        shard = self.shard(project)
        self.settled[project] = project_figures(self.snap, project, shard, self._layered(project))
        del self.appended[project]
        self._profiled.pop(project, None)

    def dropped_packs(self) -> set[str]:
        """The packs the projects this write rewrites used, or it wrote, and no longer use
        (a deleted run's or project's; a renamed project's runs keep theirs)."""
        before: set[str] = set()
        after: set[str] = set()
        for project, shard in self.shards.items():
            stored = self.snap.shard(project)
            before.update(stored.packs() if stored is not None else ())
            if project in self.packs:
                before.add(self.packs[project].name)
            after.update(shard.packs())
        return before - after

    @property
    def touches_files(self) -> bool:
        """Whether the write adds or removes pack, shard or figures files (not only the
        document; the files it supersedes are retired: perftui.store.recovery)."""
        edits = any(s.runs for s in self.shards.values())
        return bool(self.packs or self.lines or edits or self.benchmarks is not None)

    def known(self, run_id: str) -> bool:
        return run_id in self.added or self.snap.project_of(run_id) is not None


def cannot_write(shown: Path, exc: OSError) -> StoreError:
    return StoreError(
        f"cannot write database {shown} ({exc.strerror or exc}); it was left unchanged"
    )


OPEN_PACKS = 64
"""Most pack files a write keeps open: an import of thousands of projects stays under the
open-file limit. More packs than that make the commit sync the disk at once
(perftui.store.database_file.BULK), the packs closed early included."""

TAKEN_IN = 2
"""An append's segment takes in each of the project's last files (bytes, not parsed) at
most this many times as large as what it holds so far, its base file too (then written as
the project's file again): the files' sizes more than halve from the oldest to the newest,
so a project of n runs is in about log2(n) files and each run is copied about as often, at
appends that write their own runs alone."""


def write_shards(tx: Transaction, cache: dict[str, Shard], *, durable: bool) -> None:
    """Write the projects' new shard and figures files and name them in the document (the
    shard files written whole are kept in `cache`); `durable=False`: the caller syncs them
    all at once before the document commits."""
    table = tx.table("shards")
    folder = tx.payloads.folder("runs")
    for project, pending in list(tx.lines.items()):
        if not _append(tx, project, pending, table, durable):
            tx.shard(project)  # takes the pending runs: written whole below
    for project, shard in tx.shards.items():
        if not shard.runs:
            table.drop(project)
            continue
        figures = tx.settled.get(project)
        if figures is None:
            figures = project_figures(tx.snap, project, shard, tx.appended.get(project, []))
        shard.records.clear()  # built before this write's environments were stored
        name = write_shard(folder, shard.blob(), tx.token, durable=durable)
        kept = _write_figures(tx, figures.part(), durable)
        table.put(project, shard_doc(project, name, len(shard.runs), kept))
        cache[name] = shard


def _write_figures(tx: Transaction, part: dict[str, Any], durable: bool) -> str:
    return write_shard(tx.payloads.folder("figures"), dump_json(part), tx.token, durable=durable)


def _append(
    tx: Transaction,
    project: str,
    pending: list[Pending],
    table: Table,
    durable: bool,
) -> bool:
    """Append the runs to a copy of the project's file when its entry and file allow it
    (False: they do not, nothing was written)."""
    entry: dict[str, Any] | None = tx.snap.entries.get(project)
    if entry is None:
        return False
    fresh = {doc["id"]: found for doc, _, found in pending if found is not None}
    figures = appended_figures(tx.snap, project, tx.appended[project], fresh)
    if figures is None:
        return False
    folder = tx.payloads.folder("runs")
    try:
        files, count = files_of(entry), run_count(entry) + len(pending)
        if read_nofollow(folder / files[0], len(HEADER)) != HEADER:
            return False
        lines = b"".join(line(*item) for item in pending)
        kept = list(files[: len(files) - _taken(folder, files, len(lines))])
        taken = b"".join(read_nofollow(folder / name) for name in files[len(kept) :])
        kept.append(write_shard(folder, taken + lines, tx.token, durable=durable))
    except (OSError, ValueError):
        return False  # written whole, which reports what is wrong
    figures_file = _write_figures(tx, figures.part(), durable)
    table.put(project, shard_doc(project, kept[0], count, figures_file, kept[1:]))
    return True


def _taken(folder: Path, files: Sequence[str], size: int) -> int:
    """How many of the project's last `files` a new segment of `size` bytes takes in
    (`TAKEN_IN`)."""
    taken = 0
    for name in reversed(files):
        found = os.lstat(folder / name).st_size
        if found > TAKEN_IN * size:
            break
        size += found
        taken += 1
    return taken
