"""Bulky payloads of runs (raw latency samples, per-layer profiles) in files beside the
database, so the main document stays small and quick to parse.

``<db>.d/samples/<run id>.f32.z`` holds float32 little-endian samples, zlib-compressed;
``<db>.d/layers/<run id>.json.z`` a zlib-compressed JSON list of ``LayerProfile.to_dict()``.
A file is written (atomically) before the document that names it is committed, and removed
after the document that dropped it is: a kill leaves at worst an unreferenced file. A write
marks the folder (``pending``, naming the runs whose files it writes or drops) before its
first file and clears the mark once it has cleaned up, so the next write removes exactly
what a killed one left (perftui.store.recovery). The run's shard (perftui.store.shards)
keeps each payload's count.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.domain.records import LayerProfile
from perftui.store.codec import (
    SamplesBlob,
    layers_blob,
    layers_from_blob,
    samples_blob,
    samples_from_blob,
)
from perftui.store.files import atomic_write_bytes, write_new
from perftui.store.names import checked_folder, checked_run_id, read_nofollow

if TYPE_CHECKING:
    import numpy as np

__all__ = ["KINDS", "Payloads"]

KINDS = {"samples": ".f32.z", "layers": ".json.z"}
"""Payload kind -> file suffix; each kind has its own table in the document."""
BULK = 8
"""More files than this in one write are synced once together instead of one by one."""


class Payloads:
    """The payload folder of the database `target` (`shown` in messages)."""

    def __init__(self, target: Path, shown: Path | None = None) -> None:
        self.root = target.with_name(target.name + ".d")
        self.shown = shown if shown is not None else target
        self.made: list[Path] = []
        """The folders it created (removed again by a write that is undone, when empty)."""
        self.overlay: dict[tuple[str, str], bytes] = {}
        """(kind, run id) -> a payload held in memory until the next write stores it (an
        older layout's: perftui.store.legacy)."""

    def folder(self, kind: str) -> Path:
        """The folder of a kind of file (StoreError if it, or the root, is a link)."""
        checked_folder(self.root, self.shown)
        return checked_folder(self.root / kind, self.shown)

    def check(self) -> None:
        """StoreError unless the folder and each of its folders is a folder or absent (a
        link is never followed, a file never written through)."""
        checked_folder(self.root, self.shown)
        for kind in ("runs", "figures", *KINDS):
            checked_folder(self.root / kind, self.shown)

    def path(self, kind: str, run_id: str) -> Path:
        """The run's payload file; ValueError if the run id cannot name a file."""
        return self.folder(kind) / (checked_run_id(run_id) + KINDS[kind])

    def read(self, kind: str, run_id: str) -> bytes:
        """The stored blob; ValueError if it is missing or unreadable."""
        held = self.overlay.get((kind, run_id))
        if held is not None:
            return held
        path = self.path(kind, run_id)
        try:
            return read_nofollow(path)
        except OSError as exc:
            raise ValueError(f"{kind} file missing or unreadable ({exc.strerror or exc})") from None

    def samples(self, run_id: str, count: int) -> np.ndarray:
        return samples_from_blob(self.read("samples", run_id), count)

    def layers(self, run_id: str, count: int) -> list[dict]:
        return layers_from_blob(self.read("layers", run_id), count)

    @property
    def pending(self) -> Path:
        """The mark of a write in progress (or killed): ``{"token", "runs"}``, the prefix of
        the shard and figures files it writes and the runs whose payloads it writes or
        drops (perftui.store.recovery)."""
        return self.root / "pending"

    def begin(self, run_ids: Iterable[str]) -> str:
        """Mark a write in progress (before any of its files is written); the token its
        new shard and figures files' names start with."""
        token = uuid.uuid4().hex[:16]
        checked_folder(self.root, self.shown)
        self._mkdir(self.root)
        mark = {"token": token, "runs": sorted(set(run_ids))}
        atomic_write_bytes(self.pending, json.dumps(mark).encode("utf-8"))
        return token

    def _mkdir(self, folder: Path) -> None:
        if not folder.is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            self.made.append(folder)

    def unmake(self) -> None:
        """Remove the folders it created, if they are empty."""
        for folder in reversed(self.made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        self.made.clear()

    def end(self) -> None:
        """Clear the mark once the write's files are committed or removed."""
        with contextlib.suppress(OSError):
            self.pending.unlink()

    def write(self, items: Sequence[tuple[str, str, bytes]], *, sync: bool = True) -> None:
        """Write (kind, run id, blob) files; a big batch is made durable with one sync
        (`sync=False`: none, the caller syncs once after many calls)."""
        bulk = len(items) > BULK or not sync
        made: set[str] = set()
        for kind, run_id, blob in items:
            path = self.path(kind, run_id)
            if kind not in made:
                self._mkdir(path.parent)
                made.add(kind)
            if not bulk:
                atomic_write_bytes(path, blob)
                continue
            try:
                write_new(path, blob)
            except FileExistsError:  # a killed write's leftover: replaced whole
                atomic_write_bytes(path, blob, durable=False)
        if bulk and sync:
            os.sync()

    def remove(self, run_ids: Iterable[str]) -> None:
        """Remove the runs' payload files (a run id that cannot name a file names none)."""
        for run_id in run_ids:
            for kind in KINDS:
                with contextlib.suppress(OSError, ValueError):
                    self.path(kind, run_id).unlink()


def encode(
    run_id: str, layers: Sequence[LayerProfile] | None, samples: np.ndarray | SamplesBlob | None
) -> tuple[list[tuple[str, str, bytes]], dict[str, int]]:
    """The (kind, run id, blob) files of a run and their counts by kind (samples already
    stored as a blob are kept as they are)."""
    files: list[tuple[str, str, bytes]] = []
    counts: dict[str, int] = {}
    if layers is not None:
        files.append(("layers", run_id, layers_blob(layers)))
        counts["layers"] = len(layers)
    if isinstance(samples, SamplesBlob):
        files.append(("samples", run_id, samples.blob))
        counts["samples"] = samples.count
    elif samples is not None:
        blob, counts["samples"] = samples_blob(samples)
        files.append(("samples", run_id, blob))
    return files, counts
