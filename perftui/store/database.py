"""The results database's API: projects, benchmarks and runs as typed records.

The file machinery (cached reads, the locked write transaction, shards, payloads, the
journal, migration) is perftui.store.database_file's; the tables are described in
perftui.store.layout.
"""

from __future__ import annotations

import contextlib
import copy
import os
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import InputError, StoreError
from perftui.domain.measurement.summary import Headline, ProjectSummary
from perftui.domain.names import check_project_name
from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult, StoredBenchmark
from perftui.store.codec import plain, samples_blob_document
from perftui.store.database_file import DatabaseFile
from perftui.store.entries import headline_doc, stored_best
from perftui.store.figure_docs import figures_from_doc
from perftui.store.inserts import Prepared, insert_runs, prepare, unknown_project, with_id
from perftui.store.journal import Journal
from perftui.store.layout import now_iso
from perftui.store.lock import LockBusy
from perftui.store.paths import normalize_model_path, same_target
from perftui.store.recovery import check_folder
from perftui.store.repair import Plan, apply, check_named, plan
from perftui.store.shards import Shard
from perftui.store.transaction import Table

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures

    Record = Project | StoredBenchmark | Prepared
    """What `Store.merge` takes."""
    Rows = list[dict[str, Any]]

__all__ = ["Store"]


class Store(DatabaseFile):
    """The results database at `path` (a JSON file; created on the first write).

    Safe for several processes and threads: writes are serialized by a lock file and each
    one reads the file afresh; reads never block. Errors are `StoreError` (the file cannot
    be used; it is left untouched) or `InputError` (a wrong name or id). `notify` gets the
    lines a person should see (a wait for the lock, a migration, parked runs).
    """

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def check(self) -> None:
        """Read and validate the file now (StoreError if it cannot be used)."""
        self._read()

    def diagnose(self) -> tuple[str, Plan | None]:
        """What is wrong with the database ('' if nothing) and what a repair would do (None
        when the document or a file it names cannot be read: no repair rebuilds them)."""
        payloads = self._payloads()
        try:
            snap = self._load(self._target, None, strict=True)  # every record checked
            check_named(snap)
        except StoreError as exc:
            return str(exc), None
        try:
            check_folder(snap, payloads, thorough=True)  # the stamp not trusted
            problem = ""
        except StoreError as exc:
            problem = str(exc)
        try:
            return problem, plan(snap, payloads)
        except StoreError:
            return problem, None

    def interrupted(self) -> bool:
        """Whether a write marked the folder and has not cleared the mark: it was killed (or
        is under way); the next write removes what it left (perftui.store.recovery)."""
        return os.path.lexists(self._payloads().pending)

    def repair(self) -> Plan:
        """Add back the runs of the files beside the document that it does not name (see
        perftui.store.repair); what it did."""
        with self._transaction(repair=True) as db:
            found = plan(db.snap, db.payloads)
            apply(db, found)
        return found

    def upkeep(self) -> None:
        """The write that reads leave to writes, made now: remove what a killed write left,
        merge parked runs, move an older layout to this one."""
        with self._transaction():
            pass

    # ------------------------------------------------------------------ projects

    def projects(self) -> list[Project]:
        """All projects, sorted by name."""
        return sorted(self._read().projects.values(), key=lambda p: (p.name.casefold(), p.name))

    def get_project(self, name: str) -> Project | None:
        return self._read().project(name)

    @staticmethod
    def _prepared(project: Project) -> Project:
        if not isinstance(project.name, str) or not project.name.strip():
            raise InputError("a project needs a name; use --project NAME")
        check_project_name(project.name)
        if not project.model:
            raise InputError(f"project '{project.name}' needs a model path")
        if not project.engine:
            raise InputError(f"project '{project.name}' needs an engine")
        return replace(
            project,
            model=normalize_model_path(project.model),
            created_at=project.created_at or now_iso(),
            notes=dict(project.notes),
        )

    def ensure_project(self, project: Project) -> Project:
        """The stored project of that name if it measures the same model/engine/device,
        else a new one; InputError if the name is taken by another model/engine/device."""
        existing = self._read().project(project.name)
        if existing is not None:
            return self._same(existing, project)
        wanted = self._prepared(project)
        with self._transaction() as db:
            table = db.table("projects")
            doc = table.get(wanted.name)
            if doc is not None:  # another process created it meanwhile
                return self._same(Project.from_dict(doc), wanted)
            table.put(wanted.name, plain(wanted.to_dict()))
        return wanted

    @staticmethod
    def _same(existing: Project, wanted: Project) -> Project:
        """`existing` if it measures what `wanted` does; else InputError (the name is taken)."""
        if same_target(existing, wanted):
            return existing
        raise InputError(
            f"project '{existing.name}' already uses model {existing.model} on"
            f" {existing.engine}/{existing.device} of target {existing.target};"
            " choose another --project name"
        )

    def add_project(self, project: Project) -> Project:
        """Store a new project; InputError if the name exists."""
        wanted = self._prepared(project)
        with self._transaction() as db:
            table = db.table("projects")
            if table.get(wanted.name) is not None:
                raise InputError(f"project '{wanted.name}' already exists; choose another name")
            table.put(wanted.name, plain(wanted.to_dict()))
        return wanted

    def rename_project(self, old: str, new: str) -> None:
        """Rename a project; its runs, benchmarks and derived projects follow."""
        check_project_name(new, "new project name")
        self._read().shard(old)  # damage is refused before the lock is taken
        with self._transaction() as db:
            projects = db.table("projects")
            doc = projects.get(old)
            if doc is None:
                raise InputError(f"no project named '{old}'")
            if old == new:
                return
            if projects.get(new) is not None:
                raise InputError(f"project '{new}' already exists; choose another name")
            projects.drop(old)
            projects.put(new, {**doc, "name": new})
            projects.update({"source_project": new}, lambda doc: doc.get("source_project") == old)
            moved = db.shard(old)
            db.shards[old] = Shard()
            db.shards[new] = Shard(
                {run_id: {**doc, "project": new} for run_id, doc in moved.runs.items()},
                moved.refs,
                moved.figures,
            )

            benchmarks = db.edit_benchmarks()
            for n, doc in enumerate(benchmarks):
                if doc.get("project_name") == old:
                    renamed = copy.deepcopy(doc)
                    renamed["project_name"] = new
                    if isinstance(renamed.get("project"), dict):
                        renamed["project"]["name"] = new
                    benchmarks[n] = renamed

    def delete_project(self, name: str) -> None:
        """Delete a project with its runs, layers, samples and benchmarks."""
        self._read().shard(name)  # damage is refused before the lock is taken
        with self._transaction() as db:
            if not db.table("projects").drop(name):
                raise InputError(f"no project named '{name}'")
            db.lines.pop(name, None)  # runs this write merged (parked) go with it
            db.shards[name] = Shard()
            benchmarks = db.edit_benchmarks()
            benchmarks[:] = [doc for doc in benchmarks if doc.get("project_name") != name]

    # ------------------------------------------------------------------ benchmarks

    def add_benchmark(self, request: BenchmarkRequest) -> str:
        """Store what was asked (project, configs, budget, shapes, profile); its new id."""
        stored = StoredBenchmark(
            id=uuid.uuid4().hex,
            project_name=request.project.name,
            created_at=now_iso(),
            request=request,
        )
        self._read().shard(request.project.name)  # refused before anything is measured
        with self._transaction() as db:
            if db.table("projects").get(request.project.name) is None:
                raise InputError(f"no project named {request.project.name!r}; create it first")
            db.snap.shard(request.project.name)
            db.snap.entry_figures(request.project.name)
            db.edit_benchmarks().append(plain(stored.to_dict()))
        return stored.id

    def get_benchmark(self, benchmark_id: str) -> StoredBenchmark | None:
        """The stored request of that id, or None; StoreError if its document is malformed."""
        return self._read().benchmarks.get(benchmark_id)

    def project_benchmarks(self, project: str) -> list[StoredBenchmark]:
        """The stored requests of a project, oldest first; StoreError if one is malformed."""
        return self._read().benchmarks.of(project)

    def last_benchmark(self, project: str) -> StoredBenchmark | None:
        """The project's newest stored request, or None; StoreError if it is malformed."""
        return self._read().benchmarks.last(project)

    # ------------------------------------------------------------------ runs

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None = None) -> RunResult:
        """Store one run (its project must exist): assigns an id and started_at if empty,
        keeps its layers and raw latency samples in files beside the database and its
        figures (intervals and verdict) with it. Returns the stored run."""
        return self.add_runs([(run, samples_ms)])[0]

    def add_runs(self, items: Iterable[tuple[RunResult, np.ndarray | None]]) -> list[RunResult]:
        """Store several runs in one write, all or none (see `add_run`)."""
        given = list(items)
        stored = [(with_id(run), samples) for run, samples in given]
        if not stored:
            return []
        snap = self._read()  # refused before a wait for the lock could park them
        for project in {run.project for run, _ in stored}:
            if snap.project(project) is None:
                raise unknown_project(project)
        fresh = {new.id for (new, _), (run, _) in zip(stored, given, strict=True) if not run.id}
        prepared = [prepare(run, samples) for run, samples in stored]
        try:
            with self._transaction() as db:
                insert_runs(db, prepared, skip_existing=False, fresh=fresh)
        except LockBusy as busy:
            parked = Journal(self._target).park(stored)
            self._say(f"{busy}: {len(stored)} run(s) kept in {parked}; the next write adds them")
        return [run for run, _ in stored]

    def merge(self, records: Iterable[Record]) -> tuple[int, int]:
        """Add records from elsewhere in one write, taken one at a time as they come (memory
        holds one run however many there are): a project before its benchmarks and runs (an
        existing one must measure the same model/engine/device), and the benchmarks and runs
        whose ids are new (others are skipped). All or nothing: an error raised while the
        records come undoes the write. Returns (projects added, runs added)."""
        with self._transaction() as db:
            table = db.table("projects")
            stored = {doc["name"]: Project.from_dict(doc) for doc in table.all()}
            known = {doc["id"] for doc in db.snap.benchmark_list}
            projects, given, benchmarks = 0, 0, []

            def runs() -> Iterator[Prepared]:
                nonlocal projects, given
                last = ""
                for record in records:
                    if isinstance(record, Project):
                        db.settle(last)  # its runs have all come
                        project = self._prepared(record)
                        last = project.name
                        projects += self._merge_project(table, stored, project)
                    elif isinstance(record, StoredBenchmark):
                        if record.id not in known:
                            known.add(record.id)
                            benchmarks.append(plain(record.to_dict()))
                    else:
                        given += 1
                        yield record

            added = insert_runs(db, runs(), skip_existing=True)
            if benchmarks:
                db.edit_benchmarks().extend(benchmarks)
        if given > added:
            self._say(f"skipped {given - added} run(s) stored already (each run is stored once)")
        return projects, added

    @staticmethod
    def _merge_project(table: Table, stored: dict[str, Project], project: Project) -> int:
        """Store an imported project unless it is stored already (1 if it was added);
        InputError if its name is taken by another model/engine/device."""
        existing = stored.get(project.name)
        if existing is None:
            table.put(project.name, plain(project.to_dict()))
            stored[project.name] = project
            return 1
        if not same_target(existing, project):
            raise InputError(
                f"project '{project.name}' already exists with model {existing.model}"
                f" on {existing.engine}/{existing.device} (target {existing.target}), but the"
                f" import has {project.model} on {project.engine}/{project.device} (target"
                f" {project.target}); rename one of them first"
            )
        return 0

    def runs(self, project: str) -> list[RunResult]:
        """The runs of a project, newest first, with their layers ([] if none or unknown)."""
        return self._read().runs(project)

    def stream_runs(
        self, project: str, *, with_layers: bool = True, with_samples: bool = True
    ) -> Iterator[tuple[RunResult, Rows | None, dict[str, Any] | None]]:
        """The runs of a project in the order they were stored, one at a time and kept
        nowhere (for a pass over the whole database, as export makes; an import stores them
        in that order, so runs of one second keep theirs): each without its layers, with its
        layer rows as stored and its samples in the export's encoding (perftui.store.codec),
        neither decoded nor compressed again."""
        snap = self._read()
        shard = snap.shard(project, keep=False)
        if shard is None:
            return
        for run_id in shard.runs:
            run = snap.record(shard, run_id, with_layers=False, keep=False)
            rows = snap.payload(shard, "layers", run_id) if with_layers else None
            samples = (
                snap.payload(shard, "samples", run_id, samples_blob_document)
                if with_samples
                else None
            )
            yield run, rows, samples

    def get_run(self, run_id: str) -> RunResult | None:
        return self._read().run(run_id)

    def latency_samples(self, run_id: str) -> np.ndarray | None:
        """The raw per-request latencies (ms, float32) of a run, or None if not stored."""
        return self._read().latency_samples(run_id)

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its layers and samples; InputError if there is no such run."""
        with self._transaction() as db:
            project = db.snap.project_of(run_id)
            if project is None or run_id not in db.shard(project).runs:
                raise InputError(f"no run with id '{run_id}'")
            db.shard(project).remove([run_id])

    def figures(self, run_id: str) -> Figures | None:
        """A stored run's figures with their intervals and verdict (None without the run):
        as kept when it was stored, else computed from the run and its samples."""
        snap = self._read()
        shard = snap.shard_of(run_id)
        return None if shard is None else snap.run_figures(shard, run_id)

    def stream_figures(self, project: str) -> Iterator[tuple[RunResult, Figures]]:
        """The runs of a project with their figures, newest first, one at a time and kept
        nowhere (as `stream_runs`, for a CSV export)."""
        snap = self._read()
        shard = snap.shard(project, keep=False) or Shard()
        for run_id in snap.newest_first(shard):
            run = snap.record(shard, run_id, with_layers=False, keep=False)
            yield run, snap.run_figures(shard, run_id)

    def headline(self, project: str, key: str | None) -> Headline | None:
        """The combined figures of the project's configuration `key` (a summary's best
        configuration): as its figures file keeps them, else combined from its runs."""
        if key is None:
            return None
        snap = self._read()
        doc = stored_best(snap.entry_figures(project)).get(key)
        with contextlib.suppress(KeyError, TypeError, ValueError):
            doc = doc or headline_doc(snap, project, key)
            if doc is not None:
                found = figures_from_doc(doc["figures"])
                return Headline(RunConfig.from_dict(doc["config"]), int(doc["runs"]), found)
        return None

    def summaries(self) -> list[tuple[Project, ProjectSummary]]:
        """Every project (sorted by name) with its summary, from one read."""
        return list(self._read().summaries)

    def precisions(self) -> dict[str, str]:
        """Each project's runtime precision in a few characters (e.g. 'I8/FP32'), read from
        its newest profile only; projects without runs are left out."""
        return dict(self._read().precisions)
