"""The write path, all of it: one `Transaction` at a time, under the lock.

    lock <db>.lock (fcntl, not through a link; a waiting writer waits)
    read the index afresh (TinyDB through CachingMiddleware: changes stay in memory)
    as runs come: each run's .npz written to a temporary file in its project's folder
    commit: the run files and benchmarks that grow, each to a temporary file; all synced;
            the .npz files, run files and benchmarks renamed into place; then the index (the
            commit point); then the files that shrink (a deleted run) and the folders of
            deleted projects. A failure before the commit removes the temporary files; a
            kill leaves them to the next write (named .tmp-*, removed under the lock)

So the index never counts more runs or benchmarks than the files hold, unless a file was
damaged, and a kill at any moment loses no run that was stored: a run file renamed before a
kill is read with the others, its count mended by the next write to its project.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from tinydb import Query, TinyDB
from tinydb.middlewares import CachingMiddleware

from perftui.atomic import TEMP, fsync_dir, staged
from perftui.domain.errors import InputError, StoreError
from perftui.domain.measurement.summary import config_key
from perftui.domain.records import Project, RunResult
from perftui.store.codec import plain
from perftui.store.figures import computed, extended
from perftui.store.files import NOFOLLOW, FileStorage, check_folder
from perftui.store.layout import BENCHMARKS, HEADS, PAYLOADS, meta_doc, part_name
from perftui.store.reader import Entry, Reader, entry_of, old_layout
from perftui.store.runs import Prepared, payload_bytes

__all__ = ["Transaction", "cannot_write", "remove_temps"]


def cannot_write(shown: Path, exc: OSError) -> StoreError:
    return StoreError(
        f"cannot write database {shown} ({exc.strerror or exc}); nothing was stored"
        " — free some space, fix the permissions or use --db PATH"
    )


def _open(path: Path, shown: Path, durable: bool = True) -> TinyDB:
    storage = CachingMiddleware(FileStorage)
    storage.WRITE_CACHE_SIZE = 1 << 62  # written once, by `flush` at the commit
    return TinyDB(path, shown, True, durable, storage=storage)


@dataclass
class _Project:
    """What the write changes in one project's folder."""

    entry: Entry
    docs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Run file name -> its run documents as stored (read when first touched)."""
    added: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    records: list[RunResult] = field(default_factory=list)
    """The added runs, without their layers but the newest profiled one's (what the
    precision reads), so that an import holds no profile in memory."""
    profiled: RunResult | None = None
    """The newest added run with a layer profile, with it."""

    removed: set[str] = field(default_factory=set)
    shrunk: set[str] = field(default_factory=set)
    """The run files runs were removed from (written after the index)."""
    benchmarks: list[dict[str, Any]] = field(default_factory=list)
    replaced: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Stored benchmarks' new documents by id (a capacity search's end)."""
    recount: bool = False
    """A run was removed, or a file holds runs the index does not count: the figures are
    computed again from all the runs."""

    def added_runs(self) -> list[RunResult]:
        best = self.profiled
        return [best if best is not None and r.id == best.id else r for r in self.records]


class Transaction:
    """One write: the index (`self.index`, a TinyDB) and the projects' files it changes."""

    def __init__(self, reader: Reader) -> None:
        self.reader, self.shown = reader, reader.shown
        check_folder(reader.root, self.shown)
        try:
            self.index = _open(reader.path, self.shown)
        except StoreError as exc:
            raise StoreError(old_layout(reader.path, self.shown) or str(exc)) from None
        reader.checked(self.index.storage.read())  # refused here: another layout
        self.projects = self.index.table("projects", cache_size=0)
        self.touched: dict[str, _Project] = {}
        self.made: list[Path] = []
        """The temporary files the write made (removed if it fails)."""
        self.payloads: list[tuple[str, Path]] = []
        """The runs' payloads as (temporary file, path), renamed first at the commit."""
        self.made_folders: list[Path] = []
        self.gone: list[Path] = []
        self.dirty = False
        self.new_environments: dict[str, Any] = {}

    # ------------------------------------------------------------------ projects

    def entry(self, name: str) -> Entry | None:
        doc = self.projects.get(Query().name == name)
        return None if doc is None else entry_of(dict(doc), self.shown)

    def put_project(self, project: Project) -> None:
        doc = {
            "name": project.name,
            "folder": uuid.uuid4().hex,
            "project": plain(project.to_dict()),
            "parts": {},
            "benchmarks": 0,
            "seq": 0,
            "figures": None,
        }
        self.projects.insert(doc)
        self.dirty = True

    def update(self, name: str, fields: dict[str, Any]) -> None:
        self.projects.update(fields, Query().name == name)
        self.dirty = True

    def drop(self, name: str) -> bool:
        entry = self.entry(name)
        if entry is None:
            return False
        self.projects.remove(Query().name == name)
        self.touched.pop(name, None)
        self.gone.append(self.reader.root / entry.folder)
        self.dirty = True
        return True

    def _project(self, name: str) -> _Project:
        if name not in self.touched:
            entry = self.entry(name)
            if entry is None:
                raise InputError(f"no project named '{name}'; create it before storing runs")
            remove_temps([self.reader.folder(entry)])  # a killed write's
            self.touched[name] = _Project(entry)
            if set(self.reader.found_parts(entry)) - set(entry.parts):  # a killed write's
                self.touched[name].recount = True
        return self.touched[name]

    def recount(self, name: str) -> None:
        """Have the commit compute the project's figures again from all its runs."""
        self._project(name).recount = self.dirty = True

    def _docs(self, mine: _Project, part: str) -> list[dict[str, Any]]:
        if part not in mine.docs:
            found = self.reader.run_docs(mine.entry, [part])  # none if it does not exist
            if len(found) != mine.entry.parts.get(part, 0):
                mine.recount = True  # a killed write's runs: counted now
            mine.docs[part] = found
        return mine.docs[part]

    def _parts(self, mine: _Project) -> set[str]:
        return set(self.reader.found_parts(mine.entry))

    # ------------------------------------------------------------------ benchmarks and runs

    def add_benchmark(self, name: str, doc: dict[str, Any]) -> None:
        mine = self._project(name)
        self.reader.benchmarks(mine.entry)  # damage refused before it is added to
        mine.benchmarks.append(doc)
        self.dirty = True

    def replace_benchmark(self, name: str, doc: dict[str, Any]) -> bool:
        """Replace the stored benchmark of `doc`'s id (False where there is none)."""
        mine = self._project(name)
        if not any(b.id == doc["id"] for b in self.reader.benchmarks(mine.entry)):
            return False
        mine.replaced[doc["id"]] = doc
        self.dirty = True
        return True

    def add_run(self, item: Prepared, *, skip_existing: bool) -> bool:
        """Add a run (False if its id is stored already and `skip_existing`)."""
        mine = self._project(item.run.project)
        part = part_name(item.run.benchmark_id, item.run.started_at)
        docs = self._docs(mine, part)
        added = mine.added.setdefault(part, [])
        if any(doc["id"] == item.run.id for doc in (*docs, *added)):
            if skip_existing:
                return False
            raise InputError(f"run {item.run.id} is already stored")
        blob = payload_bytes(item)
        if blob is not None:  # a temporary file until the commit renames it
            folder = self._made_folder(mine, PAYLOADS)
            tmp = staged(folder / f"{item.run.id}.npz", blob, durable=False, beside=folder.parent)
            self.made.append(Path(tmp))
            self.payloads.append((tmp, folder / f"{item.run.id}.npz"))
        env = item.environment
        if env is not None and env["id"] not in self.reader.environments():
            self.new_environments[env["id"]] = env
        seq = mine.entry.seq + sum(map(len, mine.added.values())) + 1
        added.append(
            {
                "id": item.run.id,
                "seq": seq,
                "run": item.doc,
                "figures": item.figures,
                "samples": None if item.samples is None else int(item.samples.size),
                "layers": None if item.layers is None else item.layers[0],
            }
        )
        run = item.run
        if run.layers:
            best = mine.profiled
            if best is None or (run.started_at or "") >= (best.started_at or ""):
                mine.profiled = run
            run = replace(run, layers=None)
        mine.records.append(run)
        self.dirty = True
        return True

    def delete_run(self, run_id: str) -> bool:
        for doc in self.projects.all():
            entry = entry_of(dict(doc), self.shown)
            for part in entry.parts:
                if any(d["id"] == run_id for d in self.reader.part(entry, part)):
                    mine = self._project(entry.name)
                    self._docs(mine, part)
                    mine.docs[part] = [d for d in mine.docs[part] if d["id"] != run_id]
                    mine.removed.add(run_id)
                    mine.shrunk.add(part)
                    mine.recount = self.dirty = True
                    return True
        return False

    # ------------------------------------------------------------------ the commit

    def commit(self) -> None:
        """Write what changed in the order the module's docstring gives."""
        if not self.dirty:
            return
        if not self.index.table("meta").all():
            self.index.table("meta").insert(meta_doc())
        if self.new_environments:
            self.index.table("environments").insert_multiple(self.new_environments.values())
        growing: list[tuple[str, Path]] = list(self.payloads)
        shrinking: list[tuple[str, Path]] = []
        for name, mine in self.touched.items():
            heads = self._figures(name, mine)
            folder = self._made_folder(mine)
            _stage(folder / HEADS, self.shown, "heads", [{"heads": heads}], growing)
            for part, docs in mine.docs.items():
                stage = shrinking if part in mine.shrunk else growing
                _stage(folder / part, self.shown, "runs", docs + mine.added.get(part, []), stage)
            if mine.benchmarks or mine.replaced:
                old = [
                    mine.replaced.get(b.id) or b.to_dict()
                    for b in self.reader.benchmarks(mine.entry)
                ]
                _stage(
                    folder / BENCHMARKS, self.shown, "benchmarks", old + mine.benchmarks, growing
                )
        self.made += [Path(tmp) for tmp, _ in (*growing[len(self.payloads) :], *shrinking)]
        _sync(self.made)  # the payloads, run files and benchmarks before the index names them
        for tmp, path in growing:
            os.replace(tmp, path)
        for folder in {path.parent for _, path in growing}:
            fsync_dir(folder)
        # the commit; `_open` gave the index a CachingMiddleware, TinyDB types it as a Storage
        cast(CachingMiddleware, self.index.storage).flush()
        self.made.clear()
        self.made_folders.clear()
        for tmp, path in shrinking:
            os.replace(tmp, path)
        for mine in self.touched.values():
            for run_id in mine.removed:
                with contextlib.suppress(OSError):
                    (self.reader.payloads(mine.entry) / f"{run_id}.npz").unlink()
        for folder in self.gone:  # a link is left as it is, never followed
            if os.path.isdir(folder) and not os.path.islink(folder):
                shutil.rmtree(folder, ignore_errors=True)
        fsync_dir(self.reader.path.parent)

    def _figures(self, name: str, mine: _Project) -> dict[str, Any]:
        """The project's entry as the write leaves it: counts, sequence, figures; its heads
        (each configuration's combined figures: perftui.store.figures), for its folder."""
        entry, reader = mine.entry, self.reader
        parts = dict(entry.parts)
        for part, docs in mine.docs.items():
            parts[part] = len(docs) + len(mine.added.get(part, []))
        added = [doc for docs in mine.added.values() for doc in docs]
        known = {doc["id"]: doc["figures"] for docs in mine.docs.values() for doc in docs}
        known.update((doc["id"], doc["figures"]) for doc in added)
        payload_of = {doc["id"]: doc for docs in mine.docs.values() for doc in (*docs,)}

        def samples(run: RunResult) -> Any:
            doc = payload_of.get(run.id)
            with contextlib.suppress(StoreError):
                return reader.payload(entry, doc, "samples") if doc else None
            return None

        figures = None
        if not mine.recount:
            keys = {config_key(run) for run in mine.records}
            docs = [doc for docs in mine.docs.values() for doc in docs]
            if any(not run.benchmark_id for run in mine.records):  # their months' runs
                months = [p for p in entry.parts if p.startswith("runs-m-")]
                docs += reader.run_docs(entry, [p for p in months if p not in mine.docs])
            known.update((doc["id"], doc["figures"]) for doc in docs)
            members = [reader.record(entry, doc, with_layers=False) for doc in docs]
            members = [run for run in members if config_key(run) in keys]
            stored = entry.figures and {**entry.figures, "heads": reader.heads(entry)}
            figures = extended(stored, mine.added_runs(), members, known, samples)
        if figures is None:
            figures = self._computed(mine, known, samples)
            parts.update(
                {p: len(reader.part(entry, p)) for p in self._parts(mine) if p not in mine.docs}
            )
        self.update(
            name,
            {
                "parts": parts,
                "seq": entry.seq + len(added),
                "figures": {k: v for k, v in figures.items() if k != "heads"},
                "benchmarks": entry.benchmarks + len(mine.benchmarks),
            },
        )
        return figures["heads"]

    def _computed(self, mine: _Project, known: dict[str, Any], samples: Any) -> dict[str, Any]:
        entry, reader = mine.entry, self.reader
        docs = {p: reader.part(entry, p) for p in self._parts(mine)}
        docs.update(mine.docs)
        stored = sorted((d for ds in docs.values() for d in ds), key=lambda d: d["seq"])
        runs = [reader.record(entry, d, with_layers=False) for d in stored]
        known.update((d["id"], d["figures"]) for d in stored)
        profiled = [i for i, d in enumerate(stored) if d.get("layers")]
        if profiled:  # the precision reads the newest profile alone
            newest = max(profiled, key=lambda i: stored[i]["run"].get("started_at") or "")
            runs[newest] = reader.record(entry, stored[newest], with_layers=True)
        return computed([*runs, *mine.added_runs()], known, samples)

    def _made_folder(self, mine: _Project, sub: str = "") -> Path:
        """The project's folder (or its folder `sub`), made if missing."""
        folder = self.reader.folder(mine.entry)
        for made in (self.reader.root, folder, *([folder / sub] if sub else [])):
            with contextlib.suppress(FileExistsError):
                os.mkdir(made)
                self.made_folders.append(made)
        return check_folder(folder / sub, self.shown) if sub else folder

    def undo(self) -> None:
        """Remove the files and folders a failed write made before its commit."""
        for path in self.made:
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in reversed(self.made_folders):
            with contextlib.suppress(OSError):
                folder.rmdir()


def _stage(path: Path, shown: Path, table: str, docs: list[dict[str, Any]], stage: list) -> None:
    """The TinyDB file `path` holding `docs` in `table`, staged beside it (`FileStorage`)."""
    storage = CachingMiddleware(FileStorage)
    db = TinyDB(path, shown, True, False, stage, storage=storage)
    db.table(table, cache_size=0).insert_multiple(docs)
    storage.flush()


def _sync(paths: list[Path]) -> None:
    """Make the files durable: one by one when they are few, else all at once."""
    if len(paths) > 8:
        os.sync()
        return
    for path in paths:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_temps(folders: Iterable[Path]) -> None:
    """Remove the temporary files killed writes left (call under the lock)."""
    for folder in folders:
        if os.path.islink(folder):  # never followed
            continue
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                if entry.name.startswith(TEMP) and entry.is_file(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
