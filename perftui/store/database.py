"""The results database: TinyDB tables in one JSON file, written atomically by one writer at a time.

Writes take an exclusive lock (perftui.store.files), read the file afresh, apply TinyDB
operations on a buffered storage (perftui.store.storage) and commit once; the runs of each
project they touch go to a new shard file (perftui.store.shards) written before the document
that names it. Reads take no lock (the files are always whole) and come from a cached parsed
snapshot (perftui.store.snapshot) as typed records. The tables are described in
perftui.store.layout.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from tinydb import TinyDB, where
from tinydb.table import Table

from perftui.domain.errors import InputError, StoreError
from perftui.domain.records import BenchmarkRequest, Project, RunResult, StoredBenchmark
from perftui.domain.summary import ProjectSummary
from perftui.store.codec import samples_to_document
from perftui.store.files import (
    LockBusy,
    check_writable,
    exclusive_lock,
    read_only,
    remove_orphan_temps,
    signature,
    try_lock,
)
from perftui.store.journal import Journal
from perftui.store.layout import (
    SCHEMA_VERSION,
    benchmark_doc,
    meta_doc,
    now_iso,
    project_doc,
    run_doc,
    shard_doc,
    split_environment,
)
from perftui.store.paths import normalize_model_path, same_target
from perftui.store.payloads import KINDS, Payloads, encode
from perftui.store.shards import Shard, shard_folder, tidy_shards, write_shard
from perftui.store.snapshot import Snapshot, load
from perftui.store.storage import AtomicJSONStorage, DocumentEncoder

__all__ = ["Store"]


class Transaction:
    """One write: the TinyDB on the buffered storage, the shards it edits and the payload
    files it adds (written before the document commits) and drops (removed after)."""

    def __init__(self, db: TinyDB, snap: Snapshot) -> None:
        self.db = db
        self.snap = snap
        self.files: list[tuple[str, str, bytes]] = []
        self.dropped: set[str] = set()
        self.merged: list[Path] = []
        self.shards: dict[str, Shard] = {}
        """Project name -> its runs as this write leaves them."""
        self.added: set[str] = set()

    def table(self, name: str) -> Table:
        return self.db.table(name)

    def shard(self, project: str) -> Shard:
        """The project's runs, to edit (written at the commit)."""
        if project not in self.shards:
            stored = self.snap.shard(project)
            self.shards[project] = stored.copy() if stored is not None else Shard()
        return self.shards[project]

    def known(self, run_id: str) -> bool:
        return run_id in self.added or run_id in self.snap.run_index


class Store:
    """The results database at `path` (a JSON file; created on the first write).

    Safe for several processes and threads: writes are serialized by a lock file and each
    one reads the file afresh; reads never block. Errors are `StoreError` (the file cannot
    be used; it is left untouched) or `InputError` (a wrong name or id). `notify` gets the
    lines a person should see (a wait for the lock, a migration, parked runs).
    """

    SCHEMA_VERSION = SCHEMA_VERSION  # the layout's version, as callers of the Store know it
    LOCK_TIMEOUT_S = 30.0
    """How long a write waits for the lock; runs then wait in the journal instead."""

    def __init__(self, path: str | Path, notify: Callable[[str], None] | None = None) -> None:
        self.path: Path = Path(path).expanduser().absolute()
        self.notify = notify
        self._snapshot: Snapshot | None = None
        self._shards: dict[str, Shard] = {}
        """Parsed shard files by name (a file never changes), shared by the snapshots."""
        self._encoder = DocumentEncoder()
        self._cache_lock = threading.Lock()
        self._started = False

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    # ------------------------------------------------------------------ plumbing

    @property
    def _target(self) -> Path:
        return Path(os.path.realpath(self.path))

    def _say(self, line: str) -> None:
        if self.notify is not None:
            self.notify(line)

    def _read(self) -> Snapshot:
        """The current contents, parsed at most once per version of the file."""
        if not self._started:
            self._start()
        try:
            sig = signature(os.stat(self.path))
        except OSError:
            sig = None  # missing or not stat-able: load says which
        snap = self._snapshot
        if snap is not None and sig is not None and snap.sig == sig:
            return snap
        snap = load(
            self.path, self.path, self.SCHEMA_VERSION, Payloads(self._target), snap, self._shards
        )
        if snap.sig is not None:
            with self._cache_lock:
                self._snapshot = snap
        return snap

    def _start(self) -> None:
        """Once per store, when no other process writes: remove what a killed writer left
        (temporary files, unreferenced payloads), merge parked runs and migrate an older
        layout. A read-only database is read as it is."""
        self._started = True
        target = self._target
        if not target.is_file() and not Journal(target).root.is_dir():
            return
        if not os.access(target.parent, os.W_OK) or read_only(target):
            return
        with try_lock(target.with_name(target.name + ".lock")) as free:
            if not free:
                return
            remove_orphan_temps(target)
            payloads = Payloads(target)
            snap = load(target, self.path, self.SCHEMA_VERSION, payloads, None, self._shards)
            payloads.tidy(snap.payload_ids())
            tidy_shards(shard_folder(payloads.root), snap.shard_files())
        if snap.version < self.SCHEMA_VERSION or Journal(target).entries():
            with self._transaction(force=True):
                pass

    @contextlib.contextmanager
    def _transaction(
        self, edits_in_place: Sequence[str] = (), *, force: bool = False
    ) -> Iterator[Transaction]:
        """Lock, read the file, yield a Transaction on a buffered storage, commit once.

        The file is read under the lock every time; it is parsed again only if its bytes
        differ from the cached snapshot's. `edits_in_place` names the tables whose documents
        the operation updates in place (TinyDB `update`), so they are copied first. Every
        write also merges parked runs and migrates an older layout (`force` writes for those
        alone).
        """
        self._started = True
        target = self._target
        if target.is_dir():
            raise StoreError(
                f"database path {self.path} is a directory, not a file — use --db PATH/perftui.json"
            )
        check_writable(target, self.path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the directory of database {self.path}"
                f" ({exc.strerror or exc}); use --db PATH"
            ) from None
        lock_path = target.with_name(target.name + ".lock")
        payloads = Payloads(target)
        with exclusive_lock(lock_path, self.path, self.LOCK_TIMEOUT_S, self.notify):
            snap = load(
                target, self.path, self.SCHEMA_VERSION, payloads, self._snapshot, self._shards
            )
            data = snap.writable_copy(edits_in_place)
            db = TinyDB(target, data=data, encoder=self._encoder, storage=AtomicJSONStorage)
            storage: AtomicJSONStorage = db.storage  # type: ignore[assignment]
            tx = Transaction(db, snap)
            backup = self._migrate(tx, snap)
            self._merge_parked(tx)
            yield tx
            if not (storage.dirty or tx.shards or force):
                return
            if snap.version != self.SCHEMA_VERSION:
                meta = db.table("meta")
                meta.truncate()
                meta.insert(meta_doc())
            remove_orphan_temps(target)
            try:
                if backup is not None:
                    shutil.copy2(target, backup)
                payloads.write(tx.files)
                written = self._write_shards(tx, shard_folder(payloads.root))
                st = storage.commit()
            except OSError as exc:
                raise StoreError(
                    f"cannot write database {self.path} ({exc.strerror or exc});"
                    " it was left unchanged"
                ) from None
            payloads.remove(tx.dropped)
            Journal(target).discard(tx.merged)
            if tx.shards:
                tidy_shards(shard_folder(payloads.root), written)
            if backup is not None:
                self._say(
                    f"database {self.path} moved to layout {self.SCHEMA_VERSION} (runs, samples"
                    f" and profiles now in {payloads.root.name}/); the old file is kept as"
                    f" {backup}"
                )
            if st is not None:
                snap = Snapshot(
                    storage.data or {},
                    signature(st),
                    storage.digest,
                    self.path,
                    payloads,
                    self._shards,
                )
                with self._cache_lock:
                    for name in list(self._shards):
                        if name not in written:
                            del self._shards[name]
                    self._snapshot = snap

    def _write_shards(self, tx: Transaction, folder: Path) -> set[str]:
        """Write the edited shards to new files and name them, with their projects' figures,
        in the document; the shard files the document now names."""
        table = tx.table("shards")
        for project, shard in tx.shards.items():
            table.remove(where("project") == project)
            if shard.runs:
                summary, precision = tx.snap.figures(shard)
                shard.records.clear()  # built before this write's environments were stored
                name = write_shard(folder, shard)
                table.insert(shard_doc(project, name, list(shard.runs), summary, precision))
                self._shards[name] = shard
        return {doc["file"] for doc in table.all()}

    def _migrate(self, tx: Transaction, snap: Snapshot) -> Path | None:
        """Move an older layout's runs to shards and inline payloads to files; the backup's
        path, or None."""
        if snap.sig is None or snap.version >= self.SCHEMA_VERSION:
            return None
        for kind, inline in snap.inline.items():
            for run_id, doc in inline.items():
                tx.files.append((kind, run_id, base64.b64decode(doc["data"])))
        known = {doc["id"] for doc in tx.table("environments").all()}
        for project in {name for name in snap.run_index.values()}:
            shard = tx.shard(project)
            for run_id, doc in list(shard.runs.items()):
                shard.runs[run_id], env = split_environment(doc)
                if env is not None and env["id"] not in known:
                    known.add(env["id"])
                    tx.table("environments").insert(env)
        for name in ("runs", *KINDS):
            tx.db.drop_table(name)
        target = self._target
        return target.with_name(f"{target.name}.layout{snap.version}.bak")

    def _merge_parked(self, tx: Transaction) -> None:
        entries = Journal(self._target).entries()
        runs = [item for _, parked in entries for item in parked]
        if runs:
            added = _insert_runs(tx, runs, skip_existing=True, missing_project_ok=True)
            tx.merged = [path for path, _ in entries]
            self._say(f"merged {added} parked run(s) into database {self.path}")

    def check(self) -> None:
        """Read and validate the file now (StoreError if it cannot be used)."""
        self._read()

    # ------------------------------------------------------------------ projects

    def projects(self) -> list[Project]:
        """All projects, sorted by name."""
        return sorted(self._read().projects.values(), key=lambda p: (p.name.casefold(), p.name))

    def get_project(self, name: str) -> Project | None:
        return self._read().projects.get(name)

    @staticmethod
    def _prepared(project: Project) -> Project:
        if not isinstance(project.name, str) or not project.name.strip():
            raise InputError("a project needs a name; use --project NAME")
        try:
            project.name.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(
                f"project name {project.name!r} is not valid text (a lone surrogate);"
                " use --project NAME"
            ) from None
        if not project.model:
            raise InputError(f"project '{project.name}' needs a model path")
        if not project.engine:
            raise InputError(f"project '{project.name}' needs an engine")
        return Project(
            name=project.name,
            model=normalize_model_path(project.model),
            engine=project.engine,
            device=project.device,
            created_at=project.created_at or now_iso(),
            source_project=project.source_project,
            notes=dict(project.notes),
            target=project.target,
        )

    @staticmethod
    def _conflict(existing: Project, wanted: Project) -> InputError:
        return InputError(
            f"project '{existing.name}' already uses model {existing.model} on"
            f" {existing.engine}/{existing.device} of target {existing.target};"
            " choose another --project name"
        )

    def ensure_project(self, project: Project) -> Project:
        """The stored project of that name if it measures the same model/engine/device,
        else a new one; InputError if the name is taken by another model/engine/device."""
        existing = self._read().projects.get(project.name)
        if existing is not None:
            if same_target(existing, project):
                return existing
            raise self._conflict(existing, project)
        wanted = self._prepared(project)
        with self._transaction() as db:
            table = db.table("projects")
            doc = table.get(where("name") == wanted.name)
            if doc is not None:  # another process created it meanwhile
                existing = Project.from_dict(doc)
                if same_target(existing, wanted):
                    return existing
                raise self._conflict(existing, wanted)
            table.insert(project_doc(wanted))
        return wanted

    def add_project(self, project: Project) -> Project:
        """Store a new project; InputError if the name exists."""
        wanted = self._prepared(project)
        with self._transaction() as db:
            table = db.table("projects")
            if table.contains(where("name") == wanted.name):
                raise InputError(f"project '{wanted.name}' already exists; choose another name")
            table.insert(project_doc(wanted))
        return wanted

    def rename_project(self, old: str, new: str) -> None:
        """Rename a project; its runs, benchmarks and derived projects follow."""
        if not new or not new.strip():
            raise InputError("the new project name is empty")
        with self._transaction(edits_in_place=("projects", "benchmarks")) as db:
            projects = db.table("projects")
            if not projects.contains(where("name") == old):
                raise InputError(f"no project named '{old}'")
            if old == new:
                return
            if projects.contains(where("name") == new):
                raise InputError(f"project '{new}' already exists; choose another name")
            projects.update({"name": new}, where("name") == old)
            projects.update({"source_project": new}, where("source_project") == old)
            moved = db.shard(old)
            db.shards[old] = Shard()
            db.shards[new] = Shard(
                {run_id: {**doc, "project": new} for run_id, doc in moved.runs.items()},
                moved.counts["samples"],
                moved.counts["layers"],
            )

            def rename(doc: dict[str, Any]) -> None:
                doc["project_name"] = new
                if isinstance(doc.get("project"), dict):
                    doc["project"]["name"] = new

            db.table("benchmarks").update(rename, where("project_name") == old)

    def delete_project(self, name: str) -> None:
        """Delete a project with its runs, layers, samples and benchmarks."""
        with self._transaction() as db:
            if not db.table("projects").remove(where("name") == name):
                raise InputError(f"no project named '{name}'")
            db.dropped |= set(db.shard(name).runs)
            db.shards[name] = Shard()
            db.table("benchmarks").remove(where("project_name") == name)

    # ------------------------------------------------------------------ benchmarks

    def add_benchmark(self, request: BenchmarkRequest) -> str:
        """Store what was asked (project, configs, budget, shapes, profile); its new id."""
        stored = StoredBenchmark(
            id=uuid.uuid4().hex,
            project_name=request.project.name,
            created_at=now_iso(),
            request=request,
        )
        with self._transaction() as db:
            db.table("benchmarks").insert(benchmark_doc(stored))
        return stored.id

    def get_benchmark(self, benchmark_id: str) -> StoredBenchmark | None:
        """The stored request of that id, or None; StoreError if its document is malformed."""
        return self._read().benchmark(benchmark_id)

    def project_benchmarks(self, project: str) -> list[StoredBenchmark]:
        """The stored requests of a project, oldest first; StoreError if one is malformed."""
        return self._read().benchmarks(project)

    def last_benchmark(self, project: str) -> StoredBenchmark | None:
        """The project's newest stored request, or None; StoreError if it is malformed."""
        snap = self._read()
        ids = snap.benchmark_ids_by_project.get(project)
        return snap.benchmark(ids[-1]) if ids else None

    # ------------------------------------------------------------------ runs

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None = None) -> RunResult:
        """Store one run (its project must exist): assigns an id and started_at if empty,
        keeps layers and raw latency samples in their own tables. Returns the stored run."""
        return self.add_runs([(run, samples_ms)])[0]

    def add_runs(self, items: Iterable[tuple[RunResult, np.ndarray | None]]) -> list[RunResult]:
        """Store several runs in one write, all or none (see `add_run`)."""
        prepared = [_prepare_run(run, samples) for run, samples in items]
        if not prepared:
            return []
        try:
            with self._transaction() as db:
                _insert_runs(db, prepared, skip_existing=False)
        except LockBusy as busy:
            parked = Journal(self._target).park(prepared)
            self._say(f"{busy}: {len(prepared)} run(s) kept in {parked}; the next write adds them")
        return [run for run, _ in prepared]

    def merge(
        self,
        projects: Sequence[Project],
        runs: Sequence[tuple[RunResult, np.ndarray | None]],
        benchmarks: Sequence[StoredBenchmark] = (),
    ) -> tuple[int, int]:
        """Add records from elsewhere in one write: new projects (an existing one must measure
        the same model/engine/device), runs and benchmarks whose ids are new (others are
        skipped). Returns (projects added, runs added)."""
        wanted = [self._prepared(p) for p in projects]
        prepared = [_prepare_run(run, samples) for run, samples in runs]
        with self._transaction() as db:
            table = db.table("projects")
            stored = {doc["name"]: Project.from_dict(doc) for doc in table.all()}
            new_projects = []
            for project in wanted:
                existing = stored.get(project.name)
                if existing is None:
                    new_projects.append(project_doc(project))
                    stored[project.name] = project
                elif not same_target(existing, project):
                    raise InputError(
                        f"project '{project.name}' already exists with model {existing.model}"
                        f" on {existing.engine}/{existing.device}, but the import has"
                        f" {project.model} on {project.engine}/{project.device};"
                        " rename one of them first"
                    )
            if new_projects:
                table.insert_multiple(new_projects)
            added = _insert_runs(db, prepared, skip_existing=True)
            bench_table = db.table("benchmarks")
            known = {doc["id"] for doc in bench_table.all()}
            fresh = [benchmark_doc(b) for b in benchmarks if b.id not in known]
            if fresh:
                bench_table.insert_multiple(fresh)
        return len(new_projects), added

    def runs(self, project: str) -> list[RunResult]:
        """The runs of a project, newest first, with their layers ([] if none or unknown)."""
        return self._read().runs(project)

    def get_run(self, run_id: str) -> RunResult | None:
        return self._read().run(run_id)

    def latency_samples(self, run_id: str) -> np.ndarray | None:
        """The raw per-request latencies (ms, float32) of a run, or None if not stored."""
        return self._read().latency_samples(run_id)

    def samples_document(self, run_id: str) -> dict[str, Any] | None:
        """A run's samples in the export's encoding (perftui.store.codec), or None."""
        samples = self.latency_samples(run_id)
        return None if samples is None else samples_to_document(samples)

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its layers and samples; InputError if there is no such run."""
        with self._transaction() as db:
            project = db.snap.run_index.get(run_id)
            if project is None or run_id not in db.shard(project).runs:
                raise InputError(f"no run with id '{run_id}'")
            db.shard(project).remove([run_id])
            db.dropped.add(run_id)

    def summaries(self) -> list[tuple[Project, ProjectSummary]]:
        """Every project (sorted by name) with its summary, from one read."""
        return list(self._read().summaries)

    def precisions(self) -> dict[str, str]:
        """Each project's runtime precision in a few characters (e.g. 'I8/FP32'), read from
        its newest profile only; projects without runs are left out."""
        return dict(self._read().precisions)


def _prepare_run(run: RunResult, samples: np.ndarray | None) -> tuple[RunResult, np.ndarray | None]:
    if not run.project:
        raise InputError("a run must name its project before it is stored")
    stored = replace(run, id=run.id or uuid.uuid4().hex, started_at=run.started_at or now_iso())
    return stored, samples


def _insert_runs(
    tx: Transaction,
    prepared: Sequence[tuple[RunResult, np.ndarray | None]],
    *,
    skip_existing: bool,
    missing_project_ok: bool = False,
) -> int:
    """Insert runs with their payloads; a run of an unknown project is an InputError, or
    skipped with `missing_project_ok` (a parked run whose project was deleted since)."""
    projects = {doc["name"] for doc in tx.table("projects").all()}
    environments = {doc["id"] for doc in tx.table("environments").all()}
    new_environments = []
    added = 0
    for run, samples in prepared:
        if run.project not in projects:
            if missing_project_ok:
                continue
            raise InputError(f"no project named '{run.project}'; create it before storing runs")
        if tx.known(run.id):
            if skip_existing:
                continue
            raise InputError(f"run {run.id} is already stored")
        tx.added.add(run.id)
        doc, env = run_doc(run)
        if env is not None and env["id"] not in environments:
            environments.add(env["id"])
            new_environments.append(env)
        files, counts = encode(run.id, run.layers, samples)
        tx.files.extend(files)
        tx.shard(run.project).add(doc, counts)
        added += 1
    if new_environments:
        tx.table("environments").insert_multiple(new_environments)
    return added
