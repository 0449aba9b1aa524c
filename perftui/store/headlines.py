"""Each project's configurations' combined figures, so the projects list shows a
configuration's figure (its repetitions combined, with interval and verdict) exactly as the
project's runs table does (domain.measurement.figures.group_runs), reading no run.

A project's figures file (perftui.store.entry_figures) keeps ``headlines``: each
configuration's key (domain.measurement.summary.config_key) -> [combined throughput, combined
median latency], as one JSON string (a reader of the summary skips it whole), and ``best``:
the stored figures (perftui.store.figure_docs) of the one or two configurations the summary
names. A write that only adds runs combines again the configurations they belong to alone,
parsing only the lines of the project's files that name their benchmarks (a benchmark's
repetitions arrive in separate writes; a new benchmark reads none); any other write combines
every configuration of the project's runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import StoreError
from perftui.domain.measurement.summary import benchmark_of, config_key
from perftui.domain.records import RunResult
from perftui.store.figure_docs import METHOD, encoded, figures_from_doc
from perftui.store.shards import Shard

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures
    from perftui.store.snapshot import Snapshot

__all__ = ["Combined", "best_docs", "combined", "headline_doc", "touched"]

Combined = dict[str, tuple[list[float | None], dict[str, Any]]]
"""Configuration key -> ([throughput, median latency], its stored figures)."""


def combined(
    snap: Snapshot,
    shard: Shard,
    runs: Sequence[RunResult],
    fresh: dict[str, dict[str, Any]] | None = None,
) -> Combined:
    """The configurations of `runs` (read from `shard`, or added by this write with their
    figures in `fresh`) combined as the runs table combines them."""
    from perftui.domain.measurement.figures import group_runs

    fresh = fresh or {}

    def known(run: RunResult) -> Figures | None:
        doc = fresh.get(run.id) or shard.figures.get(run.id)
        if doc is not None:
            with contextlib.suppress(KeyError, TypeError, ValueError):
                return figures_from_doc(doc)
        return None

    def samples(run: RunResult) -> np.ndarray | None:
        try:  # a damaged samples file does not stop the write
            return snap.payload(shard, "samples", run.id) if run.id in shard.runs else None
        except StoreError:
            return None

    found: Combined = {}
    for group in group_runs(runs, samples, known):
        fps = group.figures.throughput_fps if group.ok_runs else None
        doc = {"config": group.config.to_dict(), "runs": len(group.runs)}
        doc["figures"] = encoded(group.figures)
        found[config_key(group.runs[0])] = ([fps, group.latency_ms("median")], doc)
    return found


def _members(snap: Snapshot, project: str, keys: Collection[str]) -> tuple[Shard, list[RunResult]]:
    """The stored runs of these configurations and the shard part that holds them."""
    part = snap.benchmark_runs(project, {benchmark_of(key) for key in keys})
    runs = [snap.record(part, run_id, with_layers=False) for run_id in part.runs]
    return part, [run for run in runs if config_key(run) in keys]


def touched(
    snap: Snapshot,
    project: str,
    added: Sequence[RunResult],
    fresh: dict[str, dict[str, Any]],
    stored_keys: Collection[str],
) -> Combined:
    """The configurations the runs `added` to the project belong to, combined with their
    stored repetitions (none where `stored_keys`, every stored configuration's key, has
    none: the project's files are then not read)."""
    keys = {config_key(run) for run in added} & set(stored_keys)
    part, stored = _members(snap, project, keys) if keys else (Shard(), [])
    ids = {run.id for run in added}
    return combined(snap, part, [r for r in stored if r.id not in ids] + list(added), fresh)


def headline_doc(snap: Snapshot, project: str, key: str) -> dict[str, Any] | None:
    """A configuration's stored figures combined from its stored runs (None without any)."""
    part, runs = _members(snap, project, {key})
    found = combined(snap, part, runs).get(key)
    return None if found is None else found[1]


def best_docs(
    snap: Snapshot, project: str, keys: Collection[str | None], *known: dict[str, Any]
) -> dict[str, Any]:
    """{"method", "configs": key -> stored figures} of the configurations `keys`: from the
    first of `known` that holds one, else combined from the stored runs."""
    docs = {}
    for key in filter(None, keys):
        doc = next((k[key] for k in known if key in k), None) or headline_doc(snap, project, key)
        if doc is not None:
            docs[key] = doc
    return {"method": METHOD, "configs": docs}
