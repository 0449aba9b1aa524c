"""One parsed, validated version of the database file, and the typed records read from it.

The parsed file is cached by the store per file signature (device, inode, size, mtime,
ctime), so reading an unchanged database costs one ``stat``; `load` re-parses only when the
bytes (SHA-256) differ from the snapshot it may reuse.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from perftui.domain.errors import StoreError
from perftui.domain.profile import runtime_precision
from perftui.domain.records import Project, RunResult, StoredBenchmark
from perftui.domain.summary import ProjectSummary, summarize
from perftui.store.codec import layers_from_document, samples_from_document
from perftui.store.files import Signature, digest, read_bytes
from perftui.store.layout import doc_key, time_key
from perftui.store.payloads import KINDS, Payloads

__all__ = ["Snapshot", "damaged", "load"]

MALFORMED = (KeyError, TypeError, ValueError, AttributeError)
"""What a record's `from_dict` raises on a document of the wrong shape."""


def damaged(path: Path, reason: str) -> StoreError:
    return StoreError(
        f"database {path} is damaged ({reason}); it was left untouched"
        " — move it aside or use --db PATH"
    )


def _malformed(shown: Path, what: str, exc: Exception) -> StoreError:
    return damaged(shown, f"{what} is malformed ({type(exc).__name__}: {exc})")


def load(
    path: Path,
    shown: Path,
    schema_version: int,
    payloads: Payloads,
    reuse: Snapshot | None = None,
) -> Snapshot:
    """Read and validate the database file (an empty snapshot if it does not exist).

    `reuse` is returned instead of parsing again when the bytes are the same as its own.
    """
    got = read_bytes(path, shown)
    if got is None:
        return Snapshot({}, None, None, shown, payloads)
    raw, sig = got
    hashed = digest(raw)
    if reuse is not None and reuse.digest == hashed:
        reuse.sig = sig
        return reuse
    return Snapshot(parse(raw, shown, schema_version), sig, hashed, shown, payloads)


def parse(raw: bytes, shown: Path, schema_version: int) -> dict[str, Any]:
    """The tables of the file's bytes; StoreError if they are not a perftui database."""
    if not raw.strip():
        return {}  # an empty file holds nothing to lose
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise damaged(shown, "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise damaged(shown, f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise damaged(shown, "nested too deeply") from None
    if not isinstance(data, dict):
        raise damaged(shown, "the top level is not a JSON object")
    for name, table in data.items():
        if not isinstance(table, dict) or not all(isinstance(d, dict) for d in table.values()):
            raise damaged(shown, f"table {name!r} is not a table of documents")
    meta = list(data.get("meta", {}).values())
    if not meta:
        if any(data.values()):
            raise StoreError(
                f"database {shown} is not a perftui database (no schema version);"
                " it was left untouched — use --db PATH"
            )
        return data
    version = meta[0].get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise damaged(shown, f"bad schema version {version!r}")
    if version > schema_version:
        raise StoreError(
            f"database {shown} was written by a newer perftui (schema {version}; this version"
            f" reads schema {schema_version}); it was left untouched"
            " — upgrade perftui or use --db PATH"
        )
    for doc_id, doc in data.get("projects", {}).items():
        if not all(isinstance(doc.get(k), str) for k in ("name", "model", "engine")):
            raise damaged(shown, f"project document {doc_id} lacks name/model/engine")
    for doc_id, doc in data.get("runs", {}).items():
        if not (
            isinstance(doc.get("id"), str)
            and isinstance(doc.get("project"), str)
            and isinstance(doc.get("config"), dict)
        ):
            raise damaged(shown, f"run document {doc_id} lacks id/project/config")
    return data


class Snapshot:
    """One parsed version of the file, with lazily built indexes (never mutated).

    Stored documents become typed records here, once; a document of the wrong shape is a
    StoreError naming it, never a KeyError/TypeError in a caller.
    """

    def __init__(
        self,
        data: dict[str, Any],
        sig: Signature | None,
        hashed: bytes | None,
        shown: Path,
        payloads: Payloads,
    ) -> None:
        self.data = data
        self.shown = shown
        self.payloads = payloads
        self.sig = sig
        self.digest = hashed
        self._runs: dict[str, RunResult] = {}
        self._bare: dict[str, RunResult] = {}
        """Runs read without their layers (summaries, the home screen)."""
        self._benchmarks: dict[str, StoredBenchmark] = {}

    def writable_copy(self, deep_tables: Sequence[str] = ()) -> dict[str, Any]:
        """Tables for a write: new table dicts sharing the (never mutated) documents, except
        `deep_tables`, whose documents are copied too (for operations that edit in place)."""
        return {
            name: copy.deepcopy(table) if name in deep_tables else dict(table)
            for name, table in self.data.items()
        }

    def _table(self, name: str) -> dict[str, dict[str, Any]]:
        return self.data.get(name, {})

    @property
    def version(self) -> int:
        """The layout's schema version (0 for an empty database)."""
        meta = list(self._table("meta").values())
        return meta[0]["schema_version"] if meta else 0

    def payload_ids(self) -> dict[str, set[str]]:
        """The run ids each payload table refers to."""
        return {kind: {d["run_id"] for d in self._table(kind).values()} for kind in KINDS}

    def _payload(self, kind: str, run_id: str) -> Any:
        """A run's decoded payload, inline (an older layout) or from its file; None if the run
        has none."""
        doc = getattr(self, kind).get(run_id)
        if doc is None:
            return None
        try:
            if "data" in doc:
                return (layers_from_document if kind == "layers" else samples_from_document)(doc)
            read = self.payloads.layers if kind == "layers" else self.payloads.samples
            return read(run_id, doc["count"])
        except (KeyError, ValueError) as exc:
            raise damaged(self.shown, f"{kind} of run {run_id}: {exc}") from None

    def latency_samples(self, run_id: str) -> np.ndarray | None:
        return self._payload("samples", run_id)

    @cached_property
    def projects(self) -> dict[str, Project]:
        docs = sorted(self._table("projects").items(), key=lambda kv: doc_key(kv[0]))
        return {doc["name"]: Project.from_dict(doc) for _, doc in docs}

    @cached_property
    def run_docs(self) -> dict[str, dict[str, Any]]:
        """Run id -> document, newest first (ties: last stored first)."""
        items = sorted(
            self._table("runs").items(),
            key=lambda kv: (time_key(kv[1].get("started_at", "")), doc_key(kv[0])),
            reverse=True,
        )
        return {doc["id"]: doc for _, doc in items}

    @cached_property
    def run_ids_by_project(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        for run_id, doc in self.run_docs.items():
            index.setdefault(doc["project"], []).append(run_id)
        return index

    @cached_property
    def environments(self) -> dict[str, dict[str, Any]]:
        return {d["id"]: d["environment"] for d in self._table("environments").values()}

    @cached_property
    def layers(self) -> dict[str, dict[str, Any]]:
        return {d["run_id"]: d for d in self._table("layers").values()}

    @cached_property
    def samples(self) -> dict[str, dict[str, Any]]:
        return {d["run_id"]: d for d in self._table("samples").values()}

    @cached_property
    def benchmark_docs(self) -> dict[str, dict[str, Any]]:
        """Benchmark id -> document, oldest first."""
        docs = sorted(self._table("benchmarks").items(), key=lambda kv: doc_key(kv[0]))
        return {doc["id"]: doc for _, doc in docs}

    @cached_property
    def benchmark_ids_by_project(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        for benchmark_id, doc in self.benchmark_docs.items():
            index.setdefault(doc.get("project_name"), []).append(benchmark_id)
        return index

    def run(self, run_id: str, *, with_layers: bool = True) -> RunResult | None:
        cached = self._runs.get(run_id) or (None if with_layers else self._bare.get(run_id))
        if cached is not None:
            return cached
        doc = self.run_docs.get(run_id)
        if doc is None:
            return None
        layers = self._payload("layers", run_id) if with_layers else None
        resolved = copy.deepcopy(doc.get("resolved")) if doc.get("resolved") else {}
        if "environment" in doc:  # shared by the runs that recorded the same one
            resolved["environment"] = self.environments.get(doc["environment"], {})
        try:
            result = RunResult.from_dict({**doc, "layers": layers, "resolved": resolved})
        except MALFORMED as exc:
            raise _malformed(self.shown, f"run {run_id}", exc) from None
        (self._runs if with_layers else self._bare)[run_id] = result
        return result

    def runs(self, project: str, *, with_layers: bool = True) -> list[RunResult]:
        ids = self.run_ids_by_project.get(project, [])
        return [r for r in (self.run(i, with_layers=with_layers) for i in ids) if r]

    def benchmark(self, benchmark_id: str) -> StoredBenchmark | None:
        cached = self._benchmarks.get(benchmark_id)
        if cached is not None:
            return cached
        doc = self.benchmark_docs.get(benchmark_id)
        if doc is None:
            return None
        try:
            result = StoredBenchmark.from_dict(copy.deepcopy(doc))
        except MALFORMED as exc:
            raise _malformed(self.shown, f"benchmark {benchmark_id}", exc) from None
        self._benchmarks[benchmark_id] = result
        return result

    def benchmarks(self, project: str) -> list[StoredBenchmark]:
        ids = self.benchmark_ids_by_project.get(project, [])
        return [b for b in (self.benchmark(i) for i in ids) if b]

    @cached_property
    def precisions(self) -> dict[str, str]:
        """Each project's runtime precision (perftui.domain.profile.runtime_precision), from
        its newest profile alone: no other profile is decoded."""
        found = {}
        for name in self.run_ids_by_project:
            runs = self.runs(name, with_layers=False)
            profiled = [r for r in runs if self.layers.get(r.id, {}).get("count")]
            newest = max(profiled, key=lambda r: r.started_at, default=None)
            if newest is not None:
                whole = self.run(newest.id)
                runs = [whole if r.id == newest.id and whole else r for r in runs]
            found[name] = runtime_precision(runs)
        return found

    @cached_property
    def summaries(self) -> list[tuple[Project, ProjectSummary]]:
        projects = sorted(self.projects.values(), key=lambda p: (p.name.casefold(), p.name))
        return [(p, summarize(self.runs(p.name, with_layers=False))) for p in projects]
