"""Bulky payloads of runs (raw latency samples, per-layer profiles) in files beside the
database, so the main document stays small and quick to parse.

``<db>.d/samples/<run id>.f32.z`` holds float32 little-endian samples, zlib-compressed;
``<db>.d/layers/<run id>.json.z`` a zlib-compressed JSON list of ``LayerProfile.to_dict()``.
A file is written (atomically) before the document that names it is committed, and removed
after the document that dropped it is: a kill leaves at worst an unreferenced file. A write
marks the folder (``pending``) before its first file and clears the mark once it has
cleaned up, so start-up looks for unreferenced files (a walk over every run's files) only
after a write that did not finish. The run's shard (perftui.store.shards) keeps each
payload's count.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.domain.records import LayerProfile
from perftui.store.codec import layers_blob, layers_from_blob, samples_blob, samples_from_blob
from perftui.store.files import atomic_write_bytes

if TYPE_CHECKING:
    import numpy as np

__all__ = ["KINDS", "Payloads"]

KINDS = {"samples": ".f32.z", "layers": ".json.z"}
"""Payload kind -> file suffix; each kind has its own table in the document."""
BULK = 8
"""More files than this in one write are synced once together instead of one by one."""


class Payloads:
    """The payload folder of the database `target`."""

    def __init__(self, target: Path) -> None:
        self.root = target.with_name(target.name + ".d")

    def path(self, kind: str, run_id: str) -> Path:
        return self.root / kind / (run_id + KINDS[kind])

    def read(self, kind: str, run_id: str) -> bytes:
        """The stored blob; ValueError if it is missing or unreadable."""
        try:
            return self.path(kind, run_id).read_bytes()
        except OSError as exc:
            raise ValueError(f"{kind} file missing or unreadable ({exc.strerror or exc})") from None

    def samples(self, run_id: str, count: int) -> np.ndarray:
        return samples_from_blob(self.read("samples", run_id), count)

    def layers(self, run_id: str, count: int) -> list[dict]:
        return layers_from_blob(self.read("layers", run_id), count)

    @property
    def pending(self) -> Path:
        """The mark of a write in progress (or killed)."""
        return self.root / "pending"

    def begin(self) -> None:
        """Mark a write in progress (before any of its files is written)."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.pending.touch()

    def end(self) -> None:
        """Clear the mark once the write's files are committed or removed."""
        with contextlib.suppress(OSError):
            self.pending.unlink()

    def write(self, items: Sequence[tuple[str, str, bytes]]) -> None:
        """Write (kind, run id, blob) files; a big batch is made durable with one sync."""
        bulk = len(items) > BULK
        for kind, run_id, blob in items:
            path = self.path(kind, run_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, blob, durable=not bulk)
        if bulk:
            os.sync()

    def remove(self, run_ids: Iterable[str]) -> None:
        for run_id in run_ids:
            for kind in KINDS:
                with contextlib.suppress(OSError):
                    self.path(kind, run_id).unlink()

    def tidy(self, referenced: set[str]) -> None:
        """Remove temporary files and the payloads of runs no document names (call under the
        lock)."""
        for kind, suffix in KINDS.items():
            folder = self.root / kind
            if not folder.is_dir():
                continue
            with contextlib.suppress(OSError):
                for entry in folder.iterdir():
                    name = entry.name
                    kept = name.endswith(suffix) and name[: -len(suffix)] in referenced
                    if not kept:
                        with contextlib.suppress(OSError):
                            entry.unlink()


def encode(
    run_id: str, layers: Sequence[LayerProfile] | None, samples: np.ndarray | None
) -> tuple[list[tuple[str, str, bytes]], dict[str, int]]:
    """The (kind, run id, blob) files of a run and their counts by kind."""
    files: list[tuple[str, str, bytes]] = []
    counts: dict[str, int] = {}
    if layers is not None:
        files.append(("layers", run_id, layers_blob(layers)))
        counts["layers"] = len(layers)
    if samples is not None:
        blob, counts["samples"] = samples_blob(samples)
        files.append(("samples", run_id, blob))
    return files, counts
