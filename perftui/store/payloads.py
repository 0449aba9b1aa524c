"""Bulky payloads of runs (raw latency samples, per-layer profiles) in pack files beside the
database, so the main document and the shards stay small and quick to parse.

``<db>.d/packs/<name>.pack`` holds the blobs (perftui.store.codec) one write added to one
project, one after another: one file per project and write, not per run. A run's shard line
names, for each payload, ``[count, pack, offset, size]`` (`Ref`). A pack is synced before the
document is committed, and retired once no run uses it (perftui.store.recovery).
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from perftui.store.codec import (
    SamplesBlob,
    layers_blob,
    samples_blob,
)
from perftui.store.files import atomic_write_bytes, open_new
from perftui.store.names import NOFOLLOW, checked_file, checked_folder, new_name

if TYPE_CHECKING:
    import numpy as np

__all__ = ["KINDS", "Pack", "Payloads", "Ref", "checked_ref", "encode"]

KINDS = ("samples", "layers")
MAX_BLOB = 2**31
"""Most bytes one stored blob may take."""


class Ref(NamedTuple):
    """Where a run's payload of one kind is: how many items, in which pack, where."""

    count: int
    pack: str
    """The pack file's name; "" for one an older layout keeps where it kept it (read by
    perftui.store.legacy until the next write packs it)."""
    at: int
    size: int


def checked_ref(value: Any) -> Ref:
    """A shard line's ``[count, pack, offset, size]`` as a Ref; ValueError if it is not one
    (the pack a bare name of this database, the numbers whole and in range)."""
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError(f"payload reference {str(value)[:60]!r} is not [count, pack, at, size]")
    count, pack, at, size = value
    for number, most in ((count, MAX_BLOB), (at, 2**62), (size, MAX_BLOB)):
        if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number <= most:
            raise ValueError(f"payload reference {str(value)[:60]!r} has a bad number")
    return Ref(count, checked_file(pack), at, size)


class Pack:
    """A pack file being written: blobs appended, then synced and closed at the commit (one
    closed before is opened again by `add`)."""

    def __init__(self, folder: Path, token: str) -> None:
        self.name = new_name(token, ".pack")
        self.path = folder / self.name
        self.fd = open_new(self.path)
        self.size = 0

    def add(self, blob: bytes, count: int) -> Ref:
        if self.fd < 0:
            self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | NOFOLLOW)
        at, view = self.size, memoryview(blob)
        while view:
            view = view[os.write(self.fd, view) :]
        self.size += len(blob)
        return Ref(count, self.name, at, len(blob))

    def close(self, *, durable: bool) -> None:
        """Close it (`durable`: synced first; otherwise the caller syncs)."""
        if self.fd < 0:
            return
        try:
            if durable:
                os.fsync(self.fd)
        finally:
            os.close(self.fd)
            self.fd = -1


class Payloads:
    """The payload folder of the database `target` (`shown` in messages)."""

    def __init__(self, target: Path, shown: Path | None = None) -> None:
        self.root = target.with_name(target.name + ".d")
        self.shown = shown if shown is not None else target
        self.made: list[Path] = []
        """The folders it created (removed again by a write that is undone, when empty)."""

    def folder(self, kind: str) -> Path:
        """A folder of the database (StoreError if it, or the root, is a link)."""
        checked_folder(self.root, self.shown)
        return checked_folder(self.root / kind, self.shown)

    def check(self) -> None:
        """StoreError unless the folder and each of its folders is a folder or absent (a
        link is never followed, a file never written through)."""
        checked_folder(self.root, self.shown)
        for kind in ("runs", "figures", "packs", "benchmarks"):
            checked_folder(self.root / kind, self.shown)

    def read(self, kind: str, run_id: str, ref: Ref) -> bytes:
        """The stored blob; ValueError if it is missing, unreadable or cut short."""
        try:
            fd = os.open(self.folder("packs") / ref.pack, os.O_RDONLY | NOFOLLOW)
            try:
                blob = os.pread(fd, ref.size, ref.at)
            finally:
                os.close(fd)
        except OSError as exc:
            raise ValueError(f"pack file missing or unreadable ({exc.strerror or exc})") from None
        if len(blob) != ref.size:
            raise ValueError(f"pack file {ref.pack} is cut short")
        return blob

    def holds(self, kind: str, run_id: str, ref: Ref, sizes: dict[str, int]) -> bool:
        """Whether the run's payload is where `ref` says: its pack there and that long
        (`sizes` keeps each pack's size once looked up)."""
        if ref.pack not in sizes:
            try:
                sizes[ref.pack] = os.lstat(self.folder("packs") / ref.pack).st_size
            except OSError:
                sizes[ref.pack] = -1
        return ref.at + ref.size <= sizes[ref.pack]

    def open_pack(self, token: str) -> Pack:
        """A new pack file of the write marked with `token`."""
        folder = self.folder("packs")
        self._mkdir(folder)
        return Pack(folder, token)

    @property
    def pending(self) -> Path:
        """The mark of a write in progress (or killed): ``{"token"}``, what the names of the
        files it writes start with (perftui.store.recovery)."""
        return self.root / "pending"

    @property
    def stamp(self) -> Path:
        """The stamp of the folders as the last write left them (perftui.store.recovery)."""
        return self.root / "stamp"

    def begin(self) -> str:
        """Mark a write in progress (before any of its files is written); the token its
        files' names start with."""
        token = uuid.uuid4().hex[:16]
        checked_folder(self.root, self.shown)
        self._mkdir(self.root)
        atomic_write_bytes(self.pending, json.dumps({"token": token}).encode("utf-8"))
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


def encode(
    layers: Sequence[dict[str, Any]] | None, samples: np.ndarray | SamplesBlob | None
) -> list[tuple[str, bytes, int]]:
    """The (kind, blob, count) payloads of a run: its layers as rows (`layers_blob`), its
    samples (kept as they are when already a blob)."""
    found: list[tuple[str, bytes, int]] = []
    if layers is not None:
        found.append(("layers", layers_blob(layers), len(layers)))
    if isinstance(samples, SamplesBlob):
        found.append(("samples", samples.blob, samples.count))
    elif samples is not None:
        found.append(("samples", *samples_blob(samples)))
    return found
