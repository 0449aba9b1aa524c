"""The database file as the Store reaches it: cached reads (perftui.store.snapshot: no lock,
no write) and one locked write at a time (`DatabaseFile._transaction`; the write path is in
ARCHITECTURE.md, "store/")."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from perftui.domain.errors import StoreError
from perftui.store import benchmark_file
from perftui.store.codec import dump_json
from perftui.store.document import dump
from perftui.store.entries import shard_key
from perftui.store.files import (
    atomic_write_bytes,
    check_writable,
    read_bytes,
    remove_orphan_temps,
    signature,
)
from perftui.store.inserts import insert_runs, prepare
from perftui.store.journal import Journal
from perftui.store.layout import SCHEMA_VERSION, committed, meta_doc
from perftui.store.legacy import migrate
from perftui.store.lock import exclusive_lock
from perftui.store.names import checked_folder as check_folder_of
from perftui.store.payloads import Payloads
from perftui.store.recovery import (
    check_folder,
    document_identity,
    record_stamp,
    recover,
    retire,
)
from perftui.store.shards import Shard, write_shard
from perftui.store.snapshot import Snapshot, load
from perftui.store.transaction import Transaction, cannot_write, write_shards

__all__ = ["DatabaseFile"]

BULK = 8
"""More files than this in one write are synced once together instead of one by one."""


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

    def _load(self, path: Path, reuse: Snapshot | None, *, strict: bool = False) -> Snapshot:
        return load(path, self._payloads(), reuse, self._shards, self._figures, strict=strict)

    def _check_paths(self, target: Path) -> None:
        if os.path.isdir(target):  # never raises: a folder it cannot search is met below
            raise StoreError(
                f"database path {self.path} is a directory, not a file — use --db PATH/perftui.json"
            )
        self._payloads().check()
        check_folder_of(Journal(target).root, self.path)
        check_writable(target, self.path)

    @contextlib.contextmanager
    def _transaction(self, *, repair: bool = False) -> Iterator[Transaction]:
        """Lock, read the file afresh, remove what a killed write left, merge parked runs and
        move an older layout to this one, yield a Transaction, commit once. A `repair`
        (perftui.store.repair) is the one write of a document that does not name its files.
        """
        target = self._target
        self._check_paths(target)
        if not repair:
            self._read()  # damage is refused before the lock file is even touched
        lock_path = target.with_name(target.name + ".lock")
        with exclusive_lock(lock_path, self.path, self.LOCK_TIMEOUT_S, self.notify) as forget:
            try:
                yield from self._locked(target, repair)
            finally:
                if not os.path.lexists(target):  # a new database's write that stored nothing
                    forget()

    def _locked(self, target: Path, repair: bool) -> Iterator[Transaction]:
        """The write of `_transaction`, under the lock."""
        payloads = self._payloads()
        snap = self._load(target, self._snapshot)
        recover(snap, payloads)
        if not repair:
            check_folder(snap, payloads, locked=True)
        snap.kept_files  # noqa: B018 (the records `retire` acts on, checked)
        tx = Transaction(snap, payloads)
        tables = tx.tables
        backup, lost = migrate(tx, snap, target)
        self._merge_parked(tx)
        try:
            yield tx
        except BaseException:
            if tx.token:  # files written as runs came: no document names them
                self._undo(tx, payloads)
            raise
        remove_orphan_temps(target, Journal(target).root)
        edited = tx.benchmarks is not None
        if not (tables.dirty or tx.shards or tx.lines or tx.merged or backup or edited):
            if tx.token:  # marked early, yet nothing to store (every run known)
                self._undo(tx, payloads)
            return
        if not snap.data.get("meta"):  # the database's first write
            tx.table("meta").insert([meta_doc()])
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
            write_shards(tx, self._shards, durable=not bulk)
            replaced = _write_benchmarks(tx, payloads, durable=not bulk) if edited else set()
            if bulk:
                os.sync()  # the packs and shards, made durable at once
            retire(tx, replaced, payloads, tx.dropped_packs())
            raw = dump(tables.data)
            atomic_write_bytes(target, raw)
            st = os.stat(target)  # under the lock: no other write replaces it
        except (OSError, StoreError) as exc:  # or damage met committing (a pack read back)
            if _unchanged(target, snap):  # else the next write removes them
                self._undo(tx, payloads)
            if isinstance(exc, StoreError):
                raise
            raise cannot_write(self.path, exc) from None
        Journal(target).discard(tx.merged)
        if marked:
            payloads.end()
        document = document_identity(signature(st), raw)
        record_stamp(payloads, document)
        self._cache(tx, raw, st, document)
        if backup is not None:
            self._say(
                f"database {self.path} moved to layout {SCHEMA_VERSION} (runs, samples"
                f" and profiles in {payloads.root.name}/); the old file is kept as"
                f" {backup}"
                + (f"; {lost} unreadable payload file(s) were left out" if lost else "")
            )

    def _cache(self, tx: Transaction, raw: bytes, st: os.stat_result, document: list[int]) -> None:
        """Keep the committed document (of stamp identity `document`) as the current
        snapshot, and the files it names: the entries the write replaced are forgotten, and
        the rest checked only if files of other documents are kept still."""
        data = committed(raw, tx.tables.data, self.path)
        payloads = self._payloads()
        snap = Snapshot(data, signature(st), payloads, self._shards, self._figures, raw)
        snap.identity = document
        with self._cache_lock:
            for project in tx.tables.changed("shards"):
                entry = tx.snap.entries.get(project)
                if entry is not None:
                    with contextlib.suppress(ValueError):
                        self._shards.pop(shard_key(entry), None)
                    self._figures.pop(entry.get("figures"), None)
            kept = len(snap.entries)
            if len(self._shards) > kept or len(self._figures) > kept:
                names, figures = snap.shard_keys(), snap.figures_files()
                for key in set(self._shards) - names:
                    del self._shards[key]
                for key in set(self._figures) - figures:
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
        """Add the runs parked beside the database; an entry with a run whose project does
        not exist now (renamed or deleted since) stays parked, and is said to."""
        journal = Journal(self._target)
        projects = tx.table("projects")
        runs, waiting = [], 0
        for path, parked in journal.entries():
            housed = [item for item in parked if projects.get(item[0].project) is not None]
            runs += housed
            waiting += len(parked) - len(housed)
            if len(housed) == len(parked):
                tx.merged.append(path)
        if runs:
            prepared = (prepare(run, samples) for run, samples in runs)
            added = insert_runs(tx, prepared, skip_existing=True)
            self._say(f"merged {added} parked run(s) into database {self.path}")
        if waiting:
            self._say(
                f"{waiting} parked run(s) in {journal.root} belong to a project that does not"
                " exist now; they stay there, and a write adds them once it exists again"
            )


def _write_benchmarks(
    tx: Transaction, payloads: Payloads, *, durable: bool
) -> set[tuple[str, str]]:
    """Write the benchmarks the write edited to a new file and name it in the document; the
    file it replaces (to retire), if any."""
    assert tx.benchmarks is not None
    folder = payloads.folder(benchmark_file.FOLDER)
    name = write_shard(folder, dump_json({"benchmarks": tx.benchmarks}), tx.token, durable=durable)
    table = tx.table(benchmark_file.TABLE)
    table.remove()
    table.insert([{"name": name}])
    old = tx.snap.benchmark_file
    return {(benchmark_file.FOLDER, old)} if old else set()


def _unchanged(target: Path, snap: Snapshot) -> bool:
    """Whether the database file is still the version `snap` was read from."""
    try:
        return signature(os.stat(target)) == snap.sig
    except FileNotFoundError:
        return snap.sig is None
    except OSError:
        return False
