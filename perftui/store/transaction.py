"""One write to the database: the document's tables (perftui.store.tables), the
shards it edits, the pack files its runs' payloads go to as they come (perftui.store.payloads)
and the benchmarks it edits; perftui.store.database_file takes the lock, runs it and commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import StoreError
from perftui.domain.records import LayerProfile, RunResult
from perftui.store.payloads import Pack, Payloads, Ref
from perftui.store.shards import Shard
from perftui.store.snapshot import Snapshot
from perftui.store.tables import Table, Tables

if TYPE_CHECKING:
    Pending = tuple[dict[str, Any], dict[str, Ref], dict[str, Any] | None]
    """A run added by a write: its document, payloads and figures."""

__all__ = ["Transaction", "cannot_write"]


class Transaction:
    """One write: the document's tables, the shards it edits and the pack files it adds
    (written as runs come, synced before the document commits)."""

    def __init__(self, snap: Snapshot, payloads: Payloads) -> None:
        self.tables = Tables(snap.data)
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


def cannot_write(shown: Path, exc: OSError) -> StoreError:
    return StoreError(
        f"cannot write database {shown} ({exc.strerror or exc}); it was left unchanged"
    )
