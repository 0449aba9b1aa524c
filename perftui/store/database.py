"""The results database's API: projects, benchmarks and runs as typed records.

Reads go through perftui.store.reader (no lock, no write); each write is one
perftui.store.write.Transaction under the lock (perftui.store.lock).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Set
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import InputError
from perftui.domain.measurement.summary import Headline, ProjectSummary, config_key, summarize
from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult, StoredBenchmark
from perftui.store.codec import plain, samples_to_document
from perftui.store.figure_docs import figures_from_doc
from perftui.store.figures import combined, computed, stored_summary
from perftui.store.files import check_folder, check_writable, stamp
from perftui.store.layout import now_iso, part_name
from perftui.store.lock import exclusive_lock
from perftui.store.paths import normalize_model_path, same_target
from perftui.store.reader import Entry, Reader, entry_of
from perftui.store.runs import Prepared, prepare, unknown_project, with_id
from perftui.store.write import Transaction, cannot_write, remove_temps

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures
    from perftui.domain.traffic.search import CapacitySearch

    Record = Project | StoredBenchmark | Prepared
    """What `Store.merge` takes."""
    Rows = list[dict[str, Any]]

__all__ = ["Store"]


class Store:
    """The results database whose index is `path` (created on the first write).

    Safe for several processes and threads: writes are serialized by a lock file and each
    reads the index afresh; reads never block and never write. Errors are `StoreError` (the
    database cannot be used; it is left untouched) or `InputError` (a wrong name or id).
    `notify` gets the lines a person should see (a wait for the lock, a conversion).
    """

    LOCK_TIMEOUT_S = 600.0
    """How long a write waits for the lock (writes take milliseconds; an import seconds)."""

    def __init__(self, path: str | Path, notify: Callable[[str], None] | None = None) -> None:
        self.path: Path = Path(path).expanduser().absolute()
        self.notify = notify
        self._reader = Reader(Path(os.path.realpath(self.path)), self.path)
        self._where: dict[str, tuple[Entry, dict[str, Any]]] = {}
        """Run id -> its project's entry and document, as read at `_where_version`."""
        self._where_version: tuple[int, ...] | None = None

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def _say(self, line: str) -> None:
        if self.notify is not None:
            self.notify(line)

    def version(self) -> tuple[int, ...] | None:
        """A token that changes whenever a write commits (a stat of the index: cheap enough
        to poll; the dashboard does)."""
        return stamp(self._reader.path)

    def convertible(self) -> bool:
        """Whether the database is perftui 0.1's (layout 7), which the next write converts."""
        from perftui.store import convert

        return convert.needed(self._reader.path)

    def check(self) -> None:
        """Read and validate the index now (StoreError if it cannot be used)."""
        for doc in self._reader.entries().values():
            entry_of(doc, self.path)

    # ------------------------------------------------------------------ the write

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Transaction]:
        """Lock, read the index afresh, yield a Transaction, commit it (or undo its files)."""
        from perftui.store import convert

        reader = self._reader
        if not convert.needed(reader.path):
            reader.index()  # damage refused before the lock is taken
        check_folder(reader.root, self.path)
        check_writable(reader.path, self.path)
        existed = os.path.lexists(reader.path)
        lock_path = reader.path.with_name(reader.path.name + ".lock")
        with exclusive_lock(lock_path, self.path, self.LOCK_TIMEOUT_S, self.notify) as forget:
            try:
                remove_temps((reader.path.parent, reader.root))
                if convert.needed(reader.path):
                    self._say(convert.convert(self, reader.path))
                tx = Transaction(reader)
                try:
                    yield tx
                    tx.commit()
                except BaseException as exc:
                    tx.undo()
                    if isinstance(exc, OSError):
                        raise cannot_write(self.path, exc) from None
                    raise
            finally:
                if not existed and not os.path.lexists(reader.path):
                    forget()  # a new database's write that stored nothing leaves no file

    def upkeep(self) -> None:
        """The write that reads leave to writes, made now: convert an older layout, remove what
        killed writes left (perftui.store.doctor.tidy)."""
        from perftui.store.doctor import tidy

        with self._transaction() as tx:
            tidy(tx)

    def _check(self, project: str, parts: Set[str] = frozenset(), *, benchmarks=False) -> None:
        """Refuse, before the lock is taken, a write that would meet damage: the project's
        entry and folder, the run files `parts` (if they exist) and its `benchmarks`.
        The write itself says when there is no such project."""
        entry = self._reader.entry(project)
        if entry is None:
            return
        self._reader.check_parts(entry)
        self._reader.run_docs(entry, sorted(parts & set(entry.parts)))
        if benchmarks:
            self._reader.benchmarks(entry)

    # ------------------------------------------------------------------ projects

    def _entries(self) -> list[Entry]:
        entries = [e for n in self._reader.entries() if (e := self._reader.entry(n)) is not None]
        return sorted(entries, key=lambda e: (e.name.casefold(), e.name))

    def projects(self) -> list[Project]:
        """All projects, sorted by name."""
        return [entry.project for entry in self._entries()]

    def get_project(self, name: str) -> Project | None:
        entry = self._reader.entry(name)
        return None if entry is None else entry.project

    @staticmethod
    def _prepared(project: Project) -> Project:
        from perftui.domain.names import check_project_name

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
        existing = self.get_project(project.name)
        if existing is not None:
            return self._same(existing, project)
        wanted = self._prepared(project)
        with self._transaction() as tx:
            entry = tx.entry(wanted.name)
            if entry is not None:  # another process created it meanwhile
                return self._same(entry.project, wanted)
            tx.put_project(wanted)
        return wanted

    @staticmethod
    def _same(existing: Project, wanted: Project) -> Project:
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
        with self._transaction() as tx:
            if tx.entry(wanted.name) is not None:
                raise InputError(f"project '{wanted.name}' already exists; choose another name")
            tx.put_project(wanted)
        return wanted

    def rename_project(self, old: str, new: str) -> None:
        """Rename a project; its runs, benchmarks and derived projects follow (its folder is
        named by an id, so only the index changes)."""
        from perftui.domain.names import check_project_name

        check_project_name(new, "new project name")
        self._check(old)
        with self._transaction() as tx:
            entry = tx.entry(old)
            if entry is None:
                raise InputError(f"no project named '{old}'")
            if old == new:
                return
            if tx.entry(new) is not None:
                raise InputError(f"project '{new}' already exists; choose another name")
            tx.update(old, {"name": new, "project": {**entry.doc["project"], "name": new}})
            for doc in tx.projects.all():
                if doc["project"].get("source_project") == old:
                    tx.update(doc["name"], {"project": {**doc["project"], "source_project": new}})

    def delete_project(self, name: str) -> None:
        """Delete a project with its runs, layers, samples and benchmarks."""
        self._check(name)
        with self._transaction() as tx:
            if not tx.drop(name):
                raise InputError(f"no project named '{name}'")

    # ------------------------------------------------------------------ benchmarks

    def add_benchmark(
        self, request: BenchmarkRequest, capacity: CapacitySearch | None = None
    ) -> str:
        """Store what was asked (project, configs, budget, shapes, profile; a capacity
        search's objectives); its new id."""
        stored = StoredBenchmark(
            id=uuid.uuid4().hex,
            project_name=request.project.name,
            created_at=now_iso(),
            request=request,
            capacity=capacity,
        )
        self._check(request.project.name, benchmarks=True)  # before anything is measured
        with self._transaction() as tx:
            if tx.entry(request.project.name) is None:
                raise InputError(f"no project named {request.project.name!r}; create it first")
            tx.add_benchmark(request.project.name, plain(stored.to_dict()))
        return stored.id

    def end_search(self, benchmark_id: str, capacity: CapacitySearch) -> None:
        """Record how a capacity search ended with its benchmark."""
        found = self.get_benchmark(benchmark_id)
        if found is None:
            raise InputError(f"no benchmark {benchmark_id!r}")
        name = found.project_name
        self._check(name, benchmarks=True)
        with self._transaction() as tx:
            if not tx.replace_benchmark(name, plain(replace(found, capacity=capacity).to_dict())):
                raise InputError(f"no benchmark {benchmark_id!r} in project {name!r}")

    def _benchmarks(self, entry: Entry) -> list[StoredBenchmark]:
        found = self._reader.benchmarks(entry)
        if all(b.project_name == entry.name for b in found):
            return found
        project = entry.project
        return [  # renamed since they were stored
            replace(
                b,
                project_name=entry.name,
                request=replace(b.request, project=replace(b.request.project, name=project.name)),
            )
            for b in found
        ]

    def get_benchmark(self, benchmark_id: str) -> StoredBenchmark | None:
        """The stored request of that id, or None; StoreError if its document is malformed."""
        for entry in self._entries():
            found = [b for b in self._benchmarks(entry) if b.id == benchmark_id]
            if found:
                return found[0]
        return None

    def project_benchmarks(self, project: str) -> list[StoredBenchmark]:
        """The stored requests of a project, oldest first; StoreError if one is malformed."""
        entry = self._reader.entry(project)
        return [] if entry is None else self._benchmarks(entry)

    def last_benchmark(self, project: str) -> StoredBenchmark | None:
        """The project's newest stored request, or None; StoreError if it is malformed."""
        found = self.project_benchmarks(project)
        return found[-1] if found else None

    # ------------------------------------------------------------------ runs

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None = None) -> RunResult:
        """Store one run (its project must exist): assigns an id and started_at if empty,
        keeps its layers and raw latency samples beside it and its figures (intervals and
        verdict) with it. Returns the stored run."""
        return self.add_runs([(run, samples_ms)])[0]

    def add_runs(self, items: Iterable[tuple[RunResult, np.ndarray | None]]) -> list[RunResult]:
        """Store several runs in one write, all or none (see `add_run`)."""
        stored = [(with_id(run), samples) for run, samples in items]
        if not stored:
            return []
        for project in {run.project for run, _ in stored}:
            if self._reader.entry(project) is None:
                raise unknown_project(project)
            self._check(
                project,
                {
                    part_name(run.benchmark_id, run.started_at)
                    for run, _ in stored
                    if run.project == project
                },
            )
        prepared = [prepare(run, samples) for run, samples in stored]
        with self._transaction() as tx:
            for item in prepared:
                tx.add_run(item, skip_existing=False)
        return [
            replace(item.run, layers=run.layers)
            for item, (run, _) in zip(prepared, stored, strict=True)
        ]

    def merge(self, records: Iterable[Record]) -> tuple[int, int]:
        """Add records from elsewhere in one write, taken one at a time as they come: a project
        before its benchmarks and runs (an existing one must measure the same model/engine/
        device), and the benchmarks and runs whose ids are new (others are skipped). All or
        nothing: an error raised while the records come undoes the write. Returns (projects
        added, runs added)."""
        projects = added = given = 0
        with self._transaction() as tx:
            known: set[str] = set()
            for record in records:
                if isinstance(record, Project):
                    project = self._prepared(record)
                    entry = tx.entry(project.name)
                    if entry is None:
                        tx.put_project(project)
                        projects += 1
                    elif not same_target(entry.project, project):
                        raise InputError(
                            f"project '{project.name}' already exists with model"
                            f" {entry.project.model} on {entry.project.engine}/"
                            f"{entry.project.device} (target {entry.project.target}), but the"
                            f" import has {project.model} on {project.engine}/{project.device}"
                            f" (target {project.target}); rename one of them first"
                        )
                    known = {b.id for b in self.project_benchmarks(project.name)}
                elif isinstance(record, StoredBenchmark):
                    if record.id not in known:
                        known.add(record.id)
                        tx.add_benchmark(record.project_name, plain(record.to_dict()))
                else:
                    given += 1
                    added += tx.add_run(record, skip_existing=True)
        if given > added:
            self._say(f"skipped {given - added} run(s) stored already (each run is stored once)")
        return projects, added

    def _docs(self, project: str) -> tuple[Entry, list[dict[str, Any]]] | None:
        entry = self._reader.entry(project)
        if entry is None:
            return None
        docs = self._reader.run_docs(entry)
        self._seen(entry, docs)
        return entry, docs

    @staticmethod
    def _newest_first(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from perftui.store.layout import time_key

        return sorted(
            reversed(docs), key=lambda d: time_key(d["run"].get("started_at", "")), reverse=True
        )

    def runs(self, project: str) -> list[RunResult]:
        """The runs of a project, newest first, with their layers ([] if none or unknown)."""
        found = self._docs(project)
        if found is None:
            return []
        entry, docs = found
        envs = self._reader.environments()
        return [
            self._reader.record(entry, d, with_layers=True, environments=envs)
            for d in self._newest_first(docs)
        ]

    def stream_runs(
        self, project: str, *, with_layers: bool = True, with_samples: bool = True
    ) -> Iterator[tuple[RunResult, Rows | None, dict[str, Any] | None]]:
        """The runs of a project in the order they were stored, one at a time (an export):
        each without its layers, with its layer rows and its samples in the export's
        encoding (perftui.store.codec)."""
        found = self._docs(project)
        if found is None:
            return
        entry, docs = found
        for doc in docs:
            run = self._reader.record(entry, doc, with_layers=False)
            rows = self._reader.payload(entry, doc, "layers") if with_layers else None
            samples = self._reader.payload(entry, doc, "samples") if with_samples else None
            yield run, rows, None if samples is None else samples_to_document(samples)

    def _seen(self, entry: Entry, docs: list[dict[str, Any]]) -> None:
        """Remember where the runs are, while the index stays as it is."""
        version = self.version()
        if version != self._where_version:
            self._where, self._where_version = {}, version
        self._where.update((doc["id"], (entry, doc)) for doc in docs)

    def _find(self, run_id: str) -> tuple[Entry, dict[str, Any]] | None:
        """The run's project and document: where it was last seen while the index has not
        changed, else looked for in every project."""
        if self._where_version == self.version() and run_id in self._where:
            return self._where[run_id]
        for entry in self._entries():
            docs = self._reader.run_docs(entry)
            self._seen(entry, docs)
            if run_id in self._where:
                return self._where[run_id]
        return None

    def get_run(self, run_id: str) -> RunResult | None:
        found = self._find(run_id)
        return None if found is None else self._reader.record(*found, with_layers=True)

    def latency_samples(self, run_id: str) -> np.ndarray | None:
        """The raw per-request latencies (ms, float32) of a run, or None if not stored."""
        found = self._find(run_id)
        return None if found is None else self._reader.payload(*found, "samples")

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its layers and samples; InputError if there is no such run."""
        with self._transaction() as tx:
            if not tx.delete_run(run_id):
                raise InputError(f"no run with id '{run_id}'")

    def figures(self, run_id: str) -> Figures | None:
        """A stored run's figures with their intervals and verdict (None without the run):
        as kept when it was stored, else computed from the run and its samples."""
        found = self._find(run_id)
        return None if found is None else self._figures(*found)

    def _figures(self, entry: Entry, doc: dict[str, Any]) -> Figures:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            return figures_from_doc(doc["figures"])
        from perftui.domain.measurement.figures import run_figures

        run = self._reader.record(entry, doc, with_layers=False)
        return run_figures(run, self._reader.payload(entry, doc, "samples"))

    def stream_figures(self, project: str) -> Iterator[tuple[RunResult, Figures]]:
        """The runs of a project with their figures, newest first (a CSV export)."""
        found = self._docs(project)
        if found is None:
            return
        entry, docs = found
        for doc in self._newest_first(docs):
            yield self._reader.record(entry, doc, with_layers=False), self._figures(entry, doc)

    # ------------------------------------------------------------------ the projects list

    def _stored(self, entry: Entry, key: str | None = None) -> dict[str, Any]:
        """The project's figures as its entry keeps them, else computed from its runs (figures
        another method stored, or none yet: a read writes nothing); with `key`, that
        configuration's alone when the entry does not keep it."""
        figures = entry.figures
        if (
            figures is not None
            and stored_summary(figures) is not None
            and (key is None or key in figures["best"])
        ):
            return figures
        docs = self._reader.run_docs(entry)
        runs = [self._reader.record(entry, d, with_layers=bool(d.get("layers"))) for d in docs]
        known, by_id = {d["id"]: d["figures"] for d in docs}, {d["id"]: d for d in docs}
        samples = lambda r: self._reader.payload(entry, by_id[r.id], "samples")  # noqa: E731
        if key is None:
            return computed(runs, known, samples)
        return {"best": combined([r for r in runs if config_key(r) == key], known, samples)[1]}

    def headline(self, project: str, key: str | None) -> Headline | None:
        """The combined figures of the project's configuration `key` (a summary's best
        configuration): as its entry keeps them, else combined from its runs."""
        entry = self._reader.entry(project) if key is not None else None
        if entry is None or key is None:
            return None
        doc = self._stored(entry, key)["best"].get(key)
        with contextlib.suppress(KeyError, TypeError, ValueError):
            if doc is not None:
                found = figures_from_doc(doc["figures"])
                return Headline(RunConfig.from_dict(doc["config"]), int(doc["runs"]), found)
        return None

    def summaries(self) -> list[tuple[Project, ProjectSummary]]:
        """Every project (sorted by name) with its summary, from the index."""
        empty = summarize([])
        found = []
        for entry in self._entries():
            stored = stored_summary(self._stored(entry)) if entry.runs else None
            found.append((entry.project, stored[0] if stored else empty))
        return found

    def precisions(self) -> dict[str, str]:
        """Each project's runtime precision in a few characters (e.g. 'I8/FP32'), read from
        its newest profile only; projects without runs are left out."""
        found = {}
        for entry in self._entries():
            stored = stored_summary(self._stored(entry)) if entry.runs else None
            if stored is not None:
                found[entry.name] = stored[1]
        return found

    # ------------------------------------------------------------------ doctor

    def diagnose(self) -> Any:
        """What `perftui doctor` reports (perftui.store.doctor)."""
        from perftui.store.doctor import diagnose

        return diagnose(self, self._reader)

    def repair(self) -> list[str]:
        """What `perftui doctor --repair` does: convert layout 7, count what the files hold
        (perftui.store.doctor); the lines saying what it did."""
        from perftui.store.doctor import repair

        with self._transaction() as tx:
            return repair(tx)
