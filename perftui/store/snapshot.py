"""One parsed, validated version of the database file, and the typed records read from it.

The parsed file is cached by the store per file signature (device, inode, size, mtime,
ctime), so reading an unchanged database costs one ``stat``; `load` re-parses only when the
bytes (SHA-256) differ from the snapshot it may reuse. A project's runs are read from its
shard file (perftui.store.shards) only when asked for; an older layout's document is read as
the current layout, converted in memory (perftui.store.legacy).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.domain.measurement.summary import ProjectSummary, summarize
from perftui.domain.records import Project, RunResult
from perftui.store import benchmark_file
from perftui.store.codec import dump_json, layers_from_blob, samples_from_blob
from perftui.store.entries import figures_of, files_of, named_by, read_figures, run_count, shard_key
from perftui.store.figure_docs import figures_from_doc
from perftui.store.files import Signature, read_bytes
from perftui.store.layout import damaged, lined_tables, malformed, parse, record_check, time_key
from perftui.store.legacy import convert
from perftui.store.names import read_nofollow
from perftui.store.payloads import Payloads
from perftui.store.recovery import document_identity, retired_files, stamped_as
from perftui.store.shards import HEADER, Shard

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures
    from perftui.store.legacy import Conversion

__all__ = ["Snapshot", "load"]

MALFORMED = (KeyError, TypeError, ValueError, AttributeError)
"""What a record's `from_dict` raises on a document of the wrong shape."""


def load(
    path: Path,
    payloads: Payloads,
    reuse: Snapshot | None = None,
    shards: dict[str, Shard] | None = None,
    figures: dict[str, dict[str, Any]] | None = None,
    *,
    strict: bool = False,
) -> Snapshot:
    """Read and validate the database file (an empty snapshot if it does not exist); a
    `strict` read checks every record, the stamp not trusted (perftui.store.recovery).

    `reuse` is returned instead of parsing again when the file is still the one it was read
    from (its signature and bytes); `shards` and `figures` cache parsed shard and figures
    files by name (they never change).
    """
    got = read_bytes(path, payloads.shown)
    if got is None:
        return Snapshot({}, None, payloads, shards, figures)
    raw, sig = got
    if reuse is not None and reuse.sig == sig and reuse.raw == raw:
        return reuse
    document = document_identity(sig, raw)
    data = parse(raw, payloads.shown, lined=not strict and stamped_as(payloads, document))
    conversion = convert(data, raw, payloads)
    if conversion is not None:
        data, payloads = conversion.data, conversion.held(payloads)
    data = lined_tables(data, record_check(payloads.shown))
    snap = Snapshot(data, sig, payloads, shards, figures, raw)
    snap.identity = document
    if conversion is not None:
        conversion.into(snap)
    return snap


class Snapshot:
    """One parsed version of the file, with lazily built indexes (never mutated).

    Stored documents become typed records here, once; a document of the wrong shape is a
    StoreError naming it, never a KeyError/TypeError in a caller.
    """

    def __init__(
        self,
        data: dict[str, Any],
        sig: Signature | None,
        payloads: Payloads,
        shards: dict[str, Shard] | None = None,
        figures: dict[str, dict[str, Any]] | None = None,
        raw: bytes = b"",
    ) -> None:
        self.data = data
        self.shown = payloads.shown
        self.payloads = payloads
        self.sig = sig
        self.raw = raw
        """The bytes the document was read from."""
        self._shards = shards if shards is not None else {}
        self._figures = figures if figures is not None else {}
        self.conversion: Conversion | None = None
        """How an older layout's document was read (perftui.store.legacy), else None."""

    @cached_property
    def identity(self) -> list[int] | None:
        """What the stamp names the document by (perftui.store.recovery); None without one."""
        return None if self.sig is None else document_identity(self.sig, self.raw)

    def _table(self, name: str) -> dict[str, dict[str, Any]]:
        return self.data.get(name, {})

    # ------------------------------------------------------------------ shards

    @property
    def entries(self) -> Mapping[str, dict[str, Any]]:
        """Project name -> its entry (perftui.store.entries), read as it is asked for (its
        names checked by `files`)."""
        return self._table("shards")

    def files(self, entry: dict[str, Any]) -> tuple[str, ...]:
        """The entry's shard files; damage if a name it holds is not one of this database."""
        try:
            return files_of(entry)
        except ValueError as exc:
            raise damaged(self.shown, f"entry of project {entry['project']!r}: {exc}") from None

    def _key(self, entry: dict[str, Any]) -> str:
        """The entry's shard_key, its names checked (`files`)."""
        self.files(entry)
        return shard_key(entry)

    @cached_property
    def live_files(self) -> set[tuple[str, str]]:
        """The shard and figures files the entries name (every name checked, and named by
        one entry alone: a delete of one would retire another's packs)."""
        live: set[tuple[str, str]] = set()
        for project, entry in self.entries.items():
            self.files(entry)  # its names checked
            if not live.isdisjoint(named := named_by(entry)):
                raise damaged(self.shown, f"entry of project {project!r} names another's file")
            live |= named
        return live

    @cached_property
    def named_files(self) -> set[tuple[str, str]]:
        """The (folder, name) of every file the document names (perftui.store.recovery)."""
        return self.live_files | self.kept_files

    @cached_property
    def kept_files(self) -> set[tuple[str, str]]:
        """The files it retired or keeps unclaimed, and its benchmarks file (checked by writes)."""
        own = self.benchmark_file
        try:
            kept = [*self._table("retired").values(), *self._table("unclaimed").values()]
            return retired_files(kept) | ({("benchmarks", own)} if own else set())
        except ValueError as exc:
            raise damaged(self.shown, f"retired files: {exc}") from None

    @cached_property
    def run_index(self) -> dict[str, str]:
        """Run id -> its project's name (reading every project's runs)."""
        return {
            run_id: name for name in self.entries for run_id in (self.shard(name) or Shard()).runs
        }

    def project_of(self, run_id: str) -> str | None:
        """The name of the run's project (None if no project holds it): found among the
        projects already read, else by reading them all."""
        if "run_index" not in self.__dict__:
            for name, entry in self.entries.items():
                shard = self._shards.get(self._key(entry))
                if shard is not None and run_id in shard.runs:
                    return name
        return self.run_index.get(run_id)

    def run_count(self, project: str) -> int:
        """How many runs the project holds."""
        entry = self.entries.get(project)
        if entry is None:
            return 0
        try:
            return run_count(entry)
        except ValueError as exc:
            raise damaged(self.shown, f"runs of project {project!r}: {exc}") from None

    def shard(self, project: str, *, keep: bool = True) -> Shard | None:
        """The project's runs as stored (None if it has none); `keep=False` reads a file
        not cached yet without caching it (a reader that passes once over every project)."""
        entry = self.entries.get(project)
        if entry is None:
            return None
        key = self._key(entry)
        cached = self._shards.get(key)
        if cached is None:
            cached = self._parsed(project, files_of(entry))
            if keep:
                self._shards[key] = cached
        return cached

    def benchmark_runs(self, project: str, benchmark_ids: Collection[str]) -> Shard:
        """The project's runs of these benchmarks (and perhaps a few others): only the lines
        of its files that name one of them are parsed."""
        entry = self.entries.get(project)
        if entry is None:
            return Shard()
        cached = self._shards.get(self._key(entry))
        if cached is not None:
            return cached
        needles = [b'"benchmark_id":' + dump_json(i) for i in benchmark_ids]  # as lines are
        return self._parsed(project, files_of(entry), lambda line: any(n in line for n in needles))

    def _parsed(
        self, project: str, files: Sequence[str], keep: Callable[[bytes], bool] | None = None
    ) -> Shard:
        folder = self.payloads.folder("runs")
        try:
            raw = b"".join(read_nofollow(folder / name) for name in files)
            if keep is not None and raw.startswith(HEADER):
                kept = [line for line in raw[len(HEADER) :].splitlines(True) if keep(line)]
                raw = HEADER + b"".join(kept) if kept else b""
            return Shard.parse(raw) if raw or keep is None else Shard()
        except OSError as exc:
            where = f"runs/{Path(exc.filename).name}" if exc.filename else "its runs file"
            raise damaged(
                self.shown, f"runs of project {project!r}: {where}: {exc.strerror}"
            ) from None
        except (KeyError, TypeError, ValueError, RecursionError) as exc:
            raise malformed(self.shown, f"runs file of project {project!r}", exc) from None

    def shard_keys(self) -> set[str]:
        """What the shards this document names are cached by."""
        keys = set()
        for entry in self.entries.values():
            with contextlib.suppress(ValueError):  # its runs cannot be read, nor cached
                keys.add(shard_key(entry))
        return keys

    def figures_files(self) -> set[str]:
        """The figures files the document names."""
        return {e["figures"] for e in self.entries.values() if isinstance(e.get("figures"), str)}

    def entry_figures(self, project: str) -> dict[str, Any]:
        """The project's stored figures from its figures file ({} if none can be read)."""
        name = self.entries.get(project, {}).get("figures")
        if not isinstance(name, str):
            return {}
        found = self._figures.get(name)
        if found is None:
            found = read_figures(self.payloads.folder("figures"), name)
            if found is None:
                return {}
            self._figures[name] = found
        return found

    # ------------------------------------------------------------------ runs

    def payload(
        self,
        shard: Shard,
        kind: str,
        run_id: str,
        decode: Callable[[bytes, int], Any] | None = None,
    ) -> Any:
        """A run's payload from its pack (None if it has none): decoded for its record, or
        by `decode` (of its blob and count)."""
        ref = shard.refs[kind].get(run_id)
        if ref is None:
            return None
        try:
            decode = decode or (layers_from_blob if kind == "layers" else samples_from_blob)
            return decode(self.payloads.read(kind, run_id, ref), ref.count)
        except (KeyError, TypeError, ValueError) as exc:
            raise damaged(self.shown, f"{kind} of run {run_id}: {exc}") from None

    def run_figures(self, shard: Shard, run_id: str) -> Figures:
        """The run's figures with their intervals and verdict: as kept when it was stored,
        else computed from the run and its samples."""
        doc = shard.figures.get(run_id)
        if doc is not None:
            with contextlib.suppress(KeyError, TypeError, ValueError):
                return figures_from_doc(doc)
        from perftui.domain.measurement.figures import run_figures

        run = self.record(shard, run_id, with_layers=False, keep=False)
        return run_figures(run, self.payload(shard, "samples", run_id))

    def shard_of(self, run_id: str) -> Shard | None:
        """The shard that holds the run (None if none does)."""
        shard = self.shard(self.project_of(run_id) or "")
        return shard if shard is not None and run_id in shard.runs else None

    def latency_samples(self, run_id: str) -> np.ndarray | None:
        shard = self.shard_of(run_id)
        return None if shard is None else self.payload(shard, "samples", run_id)

    @cached_property
    def projects(self) -> dict[str, Project]:
        """Every project by name (reading them all)."""
        return {name: Project.from_dict(doc) for name, doc in self._table("projects").items()}

    def project(self, name: str) -> Project | None:
        """The project of that name (reading it alone)."""
        if "projects" in self.__dict__:
            return self.projects.get(name)
        doc = self._table("projects").get(name)
        return None if doc is None else Project.from_dict(doc)

    @cached_property
    def environments(self) -> dict[str, dict[str, Any]]:
        return {d["id"]: d["environment"] for d in self._table("environments").values()}

    def record(
        self, shard: Shard, run_id: str, *, with_layers: bool = True, keep: bool = True
    ) -> RunResult:
        cached = shard.records.get((run_id, with_layers))
        if cached is None and not with_layers:
            cached = shard.records.get((run_id, True))
        if cached is not None:
            return cached
        doc = shard.runs[run_id]
        layers = self.payload(shard, "layers", run_id) if with_layers else None
        resolved = copy.deepcopy(doc.get("resolved")) if doc.get("resolved") else {}
        if "environment" in doc:  # shared by the runs that recorded the same one
            resolved["environment"] = self.environments.get(doc["environment"], {})
        try:
            result = RunResult.from_dict({**doc, "layers": layers, "resolved": resolved})
        except MALFORMED as exc:
            raise malformed(self.shown, f"run {run_id}", exc) from None
        if keep:
            shard.records[(run_id, with_layers)] = result
        return result

    def run(self, run_id: str) -> RunResult | None:
        shard = self.shard_of(run_id)
        return None if shard is None else self.record(shard, run_id)

    @staticmethod
    def newest_first(shard: Shard) -> list[str]:
        """The shard's run ids, newest first (ties: last stored first)."""
        return sorted(
            reversed(shard.runs),  # ties keep this order (a stable sort)
            key=lambda i: time_key(shard.runs[i].get("started_at", "")),
            reverse=True,
        )

    def runs(self, project: str) -> list[RunResult]:
        """The project's runs with their layers, newest first (ties: last stored first)."""
        shard = self.shard(project)
        return [] if shard is None else [self.record(shard, i) for i in self.newest_first(shard)]

    # ------------------------------------------------------------------ benchmarks

    @cached_property
    def benchmark_file(self) -> str | None:
        """The name of the file of the benchmarks (perftui.store.benchmark_file), if any."""
        try:
            return benchmark_file.named(self._table(benchmark_file.TABLE))
        except ValueError as exc:
            raise damaged(self.shown, f"benchmarks file: {exc}") from None

    @cached_property
    def benchmark_list(self) -> list[dict[str, Any]]:
        """The benchmark documents, oldest first (read from their file only when asked)."""
        name = self.benchmark_file
        if name is None:
            return []
        try:
            return benchmark_file.read(self.payloads.folder(benchmark_file.FOLDER), name)
        except OSError as exc:
            raise damaged(self.shown, f"benchmarks file: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise malformed(self.shown, "benchmarks file", exc) from None

    @cached_property
    def benchmarks(self) -> benchmark_file.Benchmarks:
        """The benchmark requests as records, by id and by project."""
        return benchmark_file.Benchmarks(self.benchmark_list, self.shown)

    # ------------------------------------------------------------------ the home screen

    @cached_property
    def precisions(self) -> dict[str, str]:
        """Each project's runtime precision; projects without runs are left out."""
        found = {name: figures_of(self, name) for name in self.projects}
        return {name: figures[1] for name, figures in found.items() if figures is not None}

    @cached_property
    def summaries(self) -> list[tuple[Project, ProjectSummary]]:
        projects = sorted(self.projects.values(), key=lambda p: (p.name.casefold(), p.name))
        empty = summarize([])
        return [(p, (figures_of(self, p.name) or (empty, ""))[0]) for p in projects]
