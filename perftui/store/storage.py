"""The TinyDB storage behind the store: the document in memory, written once per transaction."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tinydb.storages import Storage

from perftui.store.files import atomic_write_bytes, digest

__all__ = ["AtomicJSONStorage", "DocumentEncoder", "dump_json"]


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""Made once: `json.dumps` with arguments makes an encoder per call, which costs as much as
encoding a small document (and the document is encoded one document at a time)."""


def dump_json(data: Any) -> bytes:
    """Compact UTF-8 JSON."""
    return _COMPACT.encode(data).encode("utf-8")


class DocumentEncoder:
    """Serializes the tables document, re-using the JSON of documents it encoded before.

    Documents of a committed snapshot are never mutated (writes copy what they edit), so a
    document object seen again encodes to the same bytes; only new documents are encoded.
    This keeps a write of a database holding large sample blobs from re-escaping them all.
    """

    def __init__(self) -> None:
        self._fragments: dict[int, tuple[dict[str, Any], bytes]] = {}

    def encode(self, data: dict[str, dict[str, dict[str, Any]]]) -> bytes:
        fragments: dict[int, tuple[dict[str, Any], bytes]] = {}
        parts: list[bytes] = [b"{"]
        for t, (name, table) in enumerate(data.items()):
            parts.append((b"," if t else b"") + dump_json(str(name)) + b":{")
            for d, (doc_id, doc) in enumerate(table.items()):
                hit = self._fragments.get(id(doc))
                fragment = hit[1] if hit is not None and hit[0] is doc else dump_json(doc)
                fragments[id(doc)] = (doc, fragment)
                parts.append((b"," if d else b"") + dump_json(str(doc_id)) + b":")
                parts.append(fragment)
            parts.append(b"}")
        parts.append(b"}")
        self._fragments = fragments
        return b"".join(parts)


class AtomicJSONStorage(Storage):
    """TinyDB storage over one JSON file that never leaves a half-written file.

    It holds the document in memory (`read` returns it, `write` replaces it) and `commit`
    writes the whole document once with `atomic_write_bytes`: several TinyDB operations
    thus make one write, all or nothing.
    """

    def __init__(self, path: str | Path, data: dict[str, Any], encoder: DocumentEncoder) -> None:
        self.path = Path(path)
        self.data = data
        self.encoder = encoder
        self.dirty = False
        self.digest: bytes | None = None
        """Digest of the bytes written by the last `commit`."""

    def read(self) -> dict[str, Any]:
        return self.data

    def write(self, data: dict[str, Any]) -> None:
        self.data = data
        self.dirty = True

    def commit(self) -> os.stat_result | None:
        """Write the document if it changed; the new file's stat, or None if nothing changed."""
        if not self.dirty:
            return None
        payload = self.encoder.encode(self.data)
        result = atomic_write_bytes(self.path, payload)
        self.digest = digest(payload)
        self.dirty = False
        return result
