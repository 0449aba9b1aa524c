"""A project's runs one at a time, for a reader that passes once over the whole database
(export): nothing read is kept, so memory holds one project's run documents and one run's
payloads however large the database, and stored samples go out as they are stored (checked,
not decoded and compressed again)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from perftui.domain.records import RunResult
from perftui.store.codec import samples_blob_document
from perftui.store.snapshot import Snapshot

__all__ = ["Rows", "stream_runs"]

Rows = list[dict[str, Any]]


def stream_runs(
    snap: Snapshot, project: str, *, with_layers: bool, with_samples: bool
) -> Iterator[tuple[RunResult, Rows | None, dict[str, Any] | None]]:
    """The project's runs, newest first (without their layers), each with its layer
    profile's rows as stored (`LayerProfile.to_dict()` each, not made into records and back)
    and its samples in the export's encoding (perftui.store.codec), when asked for and
    stored."""
    shard = snap.shard(project, keep=False)
    if shard is None:
        return
    for run_id in snap.newest_first(shard):
        run = snap.record(shard, run_id, with_layers=False, keep=False)
        rows = snap.payload(shard, "layers", run_id) if with_layers else None
        samples = (
            snap.payload(shard, "samples", run_id, samples_blob_document) if with_samples else None
        )
        yield run, rows, samples
