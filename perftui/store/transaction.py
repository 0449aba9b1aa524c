"""The database file as the Store reaches it: cached reads and one write.

Writes take an exclusive lock (perftui.store.files), remove what a killed write left
(perftui.store.recovery), read the file afresh, apply TinyDB operations on a buffered storage
(perftui.store.storage) and commit once; the runs of each project they touch go to a new
shard file (perftui.store.shards) written before the document that names it, their payloads
to a new pack file (perftui.store.payloads) as they come. Every write also merges the runs
parked in the journal (perftui.store.journal) and moves an older layout to the current
one. Reads take no lock (the files are always whole), come from a cached parsed snapshot
(perftui.store.snapshot) and never write.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinydb import TinyDB
from tinydb.table import Table

from perftui.domain.errors import StoreError
from perftui.domain.records import LayerProfile, RunResult
from perftui.store import benchmark_file
from perftui.store.files import (
    atomic_write_bytes,
    check_writable,
    digest,
    exclusive_lock,
    read_bytes,
    remove_orphan_temps,
    signature,
)
from perftui.store.inserts import insert_runs, prepare
from perftui.store.journal import Journal
from perftui.store.layout import (
    SCHEMA_VERSION,
    meta_doc,
)
from perftui.store.legacy import migrate
from perftui.store.names import checked_folder as check_folder_of
from perftui.store.payloads import Pack, Payloads, Ref
from perftui.store.recovery import check_folder, claim, recover, retire
from perftui.store.shard_writes import write_shards
from perftui.store.shards import Shard, write_shard
from perftui.store.snapshot import Snapshot, load
from perftui.store.storage import AtomicJSONStorage, DocumentEncoder

if TYPE_CHECKING:
    Pending = tuple[dict[str, Any], dict[str, Ref], dict[str, Any] | None]
    """A run added by a write: its document, payloads and figures."""

__all__ = ["DatabaseFile", "Transaction"]

BULK = 8
"""More files than this in one write are synced once together instead of one by one."""


class Transaction:
    """One write: the TinyDB on the buffered storage, the shards it edits and the pack files
    it adds (written as runs come, synced before the document commits)."""

    def __init__(self, db: TinyDB, snap: Snapshot, payloads: Payloads) -> None:
        self.db = db
        self.snap = snap
        self.payloads = payloads
        self.packs: dict[str, Pack] = {}
        """Project name -> the pack file its runs' payloads go to."""
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
        otherwise edit (appended to its file at the commit: perftui.store.shard_writes)."""

    def table(self, name: str) -> Table:
        return self.db.table(name)

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
            return {kind: pack.add(blob, count) for kind, blob, count in blobs}
        except OSError as exc:
            raise cannot_write(self.payloads.shown, exc) from None

    def shard(self, project: str) -> Shard:
        """The project's runs, to edit (written at the commit), with those added so far."""
        if project not in self.shards:
            stored = self.snap.shard(project)
            shard = self.shards[project] = stored.copy() if stored is not None else Shard()
            for item in self.lines.pop(project, []):
                shard.add(*item)
        return self.shards[project]

    def add(self, run: RunResult, item: Pending) -> None:
        """Add a stored run (without its layers) and its (document, payloads, figures) to its
        project."""
        if run.project in self.shards:
            self.shards[run.project].add(*item)
        else:
            self.lines.setdefault(run.project, []).append(item)
        runs = self.appended.setdefault(run.project, [])
        ref = item[1].get("layers")
        if ref is not None:  # only the newest profile names the project's precision
            kept = self._profiled.get(run.project)
            if kept is None or (runs[kept[0]].started_at or "") <= (run.started_at or ""):
                self._profiled[run.project] = (len(runs), ref)
        runs.append(run)

    def with_profiles(self) -> None:
        """Give each project's newest profiled run of this write its layers, read back from
        its pack: the project's precision is read from them."""
        for project, (index, ref) in self._profiled.items():
            runs = self.appended[project]
            rows = self.payloads.layers(runs[index].id, ref)
            layers = tuple(LayerProfile.from_dict(row) for row in rows)
            runs[index] = replace(runs[index], layers=layers)

    def dropped_packs(self) -> set[str]:
        """The packs the projects this write rewrites used and no longer use (a deleted
        run's or project's; a renamed project's runs keep theirs)."""
        before: set[str] = set()
        after: set[str] = set()
        for project, shard in self.shards.items():
            stored = self.snap.shard(project)
            before.update(stored.packs() if stored is not None else ())
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


class DatabaseFile:
    """The file at `path` and what is kept of it between calls: the parsed snapshot and shard
    files. `_read` gives the current snapshot, `_transaction` one write; the Store
    (perftui.store.database) builds its records' API on these two."""

    LOCK_TIMEOUT_S = 30.0
    """How long a write waits for the lock; runs then wait in the journal instead."""

    def __init__(self, path: str | Path, notify: Callable[[str], None] | None = None) -> None:
        self.path: Path = Path(path).expanduser().absolute()
        self.notify = notify
        self._snapshot: Snapshot | None = None
        self._shards: dict[str, Shard] = {}
        """Parsed shard files by name (a file never changes), shared by the snapshots."""
        self._figures: dict[str, dict[str, Any]] = {}
        """Parsed figures files by name, likewise."""
        self._encoder = DocumentEncoder()
        self._cache_lock = threading.Lock()

    @property
    def _target(self) -> Path:
        return Path(os.path.realpath(self.path))

    def _say(self, line: str) -> None:
        if self.notify is not None:
            self.notify(line)

    def _payloads(self) -> Payloads:
        return Payloads(self._target, self.path)

    def _read(self) -> Snapshot:
        """The current contents, parsed (and checked against the folder beside it) at most
        once per version of the file. A read writes nothing: a killed write's leftovers, an
        older layout and parked runs wait for the next write."""
        for attempt in range(3):
            try:
                sig = signature(os.stat(self.path))
            except OSError:
                sig = None  # missing or not stat-able: load says which
            cached = self._snapshot
            if cached is not None and sig is not None and cached.sig == sig:
                return cached
            snap = self._load(self.path, cached)
            if snap is not cached:
                try:
                    check_folder(snap, self._payloads())
                except StoreError:
                    with contextlib.suppress(OSError):
                        if attempt < 2 and signature(os.stat(self.path)) != snap.sig:
                            continue  # a write committed meanwhile: read it again
                    raise
            if snap.sig is not None:
                with self._cache_lock:
                    self._snapshot = snap
            return snap
        raise AssertionError("unreachable")  # pragma: no cover

    def _load(self, path: Path, reuse: Snapshot | None) -> Snapshot:
        return load(
            path,
            self.path,
            SCHEMA_VERSION,
            self._payloads(),
            reuse,
            self._shards,
            self._figures,
        )

    def _check_paths(self, target: Path) -> None:
        if target.is_dir():
            raise StoreError(
                f"database path {self.path} is a directory, not a file — use --db PATH/perftui.json"
            )
        self._payloads().check()
        check_folder_of(Journal(target).root, self.path)
        check_writable(target, self.path)

    @contextlib.contextmanager
    def _transaction(
        self, edits_in_place: Sequence[str] = (), *, repair: bool = False
    ) -> Iterator[Transaction]:
        """Lock, read the file, yield a Transaction on a buffered storage, commit once.

        The file is read under the lock every time; it is parsed again only if its bytes
        differ from the cached snapshot's. `edits_in_place` names the tables whose documents
        the operation updates in place (TinyDB `update`), so they are copied first. Every
        write first removes what a killed write left, then merges parked runs and moves an
        older layout to this one (written even when the operation changes nothing else).
        A `repair` (perftui.store.repair) is the one write of a document that does not name
        the files beside it.
        """
        target = self._target
        self._check_paths(target)
        if not repair:
            self._read()  # damage is refused before the lock file is even touched
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the directory of database {self.path}"
                f" ({exc.strerror or exc}); use --db PATH"
            ) from None
        lock_path = target.with_name(target.name + ".lock")
        payloads = self._payloads()
        with exclusive_lock(lock_path, self.path, self.LOCK_TIMEOUT_S, self.notify):
            snap = self._load(target, self._snapshot)
            recover(snap, payloads)
            if not repair:
                check_folder(snap, payloads, locked=True)
            data = snap.writable_copy(edits_in_place)
            db = TinyDB(target, data=data, encoder=self._encoder, storage=AtomicJSONStorage)
            storage: AtomicJSONStorage = db.storage  # type: ignore[assignment]
            tx = Transaction(db, snap, payloads)
            backup, lost = migrate(tx, snap, target)
            self._merge_parked(tx)
            try:
                yield tx
            except BaseException:
                if tx.token:  # files written as runs came: no document names them
                    self._undo(tx, payloads)
                raise
            edited = tx.benchmarks is not None
            if not (storage.dirty or tx.shards or tx.lines or tx.merged or backup or edited):
                if tx.token:  # marked early, yet nothing to store (every run known)
                    self._undo(tx, payloads)
                return
            if snap.version and not snap.names_its_files:
                claim(db, snap, payloads)  # an earlier version's document, once
            if snap.version != SCHEMA_VERSION:
                meta = db.table("meta")
                meta.truncate()
                meta.insert(meta_doc())
            remove_orphan_temps(target)
            marked = tx.touches_files or bool(tx.token)
            try:
                if backup is not None:
                    atomic_write_bytes(backup, (read_bytes(target, self.path) or (b"",))[0])
                if marked:
                    tx.mark()
                bulk = len(tx.packs) + len(tx.shards) + len(tx.lines) > BULK
                for pack in tx.packs.values():
                    pack.close(durable=not bulk)
                tx.with_profiles()
                write_shards(tx, payloads.root, self._shards, durable=not bulk)
                before = snap.live_files
                if edited:
                    before = before | _write_benchmarks(tx, payloads, durable=not bulk)
                if bulk:
                    os.sync()  # the packs and shards, made durable at once
                retire(db, before, payloads, tx.dropped_packs())
                st = storage.commit()
            except OSError as exc:
                if _unchanged(target, snap):  # else the next write removes them
                    self._undo(tx, payloads)
                raise cannot_write(self.path, exc) from None
            Journal(target).discard(tx.merged)
            if marked:
                payloads.end()
            if backup is not None:
                self._say(
                    f"database {self.path} moved to layout {SCHEMA_VERSION} (runs, samples"
                    f" and profiles now in {payloads.root.name}/); the old file is kept as"
                    f" {backup}"
                    + (f"; {lost} unreadable payload file(s) were left out" if lost else "")
                )
            if st is not None:
                self._cache(storage, st, payloads)

    def _cache(self, storage: AtomicJSONStorage, st: os.stat_result, payloads: Payloads) -> None:
        """Keep the committed document as the current snapshot (and the files it names)."""
        snap = Snapshot(
            storage.data or {},
            signature(st),
            storage.digest,
            self.path,
            payloads,
            self._shards,
            self._figures,
        )
        kept, figures = snap.shard_keys(), snap.figures_files()
        with self._cache_lock:
            for key in list(self._shards):
                if key not in kept:
                    del self._shards[key]
            for key in list(self._figures):
                if key not in figures:
                    del self._figures[key]
            self._snapshot = snap

    def _undo(self, tx: Transaction, payloads: Payloads) -> None:
        """Remove the files of a write that failed before its document was committed, as
        for a killed one (no document names them: their names start with its token), then
        its mark."""
        for pack in tx.packs.values():
            pack.close(durable=False)
        recover(tx.snap, payloads)
        payloads.unmake()

    def _merge_parked(self, tx: Transaction) -> None:
        entries = Journal(self._target).entries()
        runs = [item for _, parked in entries for item in parked]
        if runs:
            prepared = (prepare(run, samples) for run, samples in runs)
            added = insert_runs(tx, prepared, skip_existing=True, missing_project_ok=True)
            tx.merged = [path for path, _ in entries]
            self._say(f"merged {added} parked run(s) into database {self.path}")


def _write_benchmarks(
    tx: Transaction, payloads: Payloads, *, durable: bool
) -> set[tuple[str, str]]:
    """Write the benchmarks the write edited to a new file and name it in the document; the
    file it replaces (to retire), if any."""
    assert tx.benchmarks is not None
    folder = payloads.root / benchmark_file.FOLDER
    name = write_shard(folder, benchmark_file.blob(tx.benchmarks), tx.token, durable=durable)
    table = tx.table(benchmark_file.TABLE)
    table.truncate()
    table.insert({"name": name})
    old = tx.snap.benchmark_file
    return {(benchmark_file.FOLDER, old)} if old else set()


def cannot_write(shown: Path, exc: OSError) -> StoreError:
    return StoreError(
        f"cannot write database {shown} ({exc.strerror or exc}); it was left unchanged"
    )


def _unchanged(target: Path, snap: Snapshot) -> bool:
    """Whether the database file is still the version `snap` was read from."""
    try:
        got = read_bytes(target, target)
    except StoreError:
        return False
    return digest(got[0]) == snap.digest if got is not None else snap.sig is None
