"""How values are stored as JSON: plain JSON values, and the compact blobs of latency samples
and per-layer profiles (kept in the database and in exports, unlike the worker's wire format
in perftui.bench.protocol)."""

from __future__ import annotations

import base64
import json
import os
import sys
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "MAX_LAYERS",
    "MAX_SAMPLES",
    "SAMPLES_CODEC",
    "SamplesBlob",
    "dump_json",
    "inflate",
    "layers_blob",
    "layers_from_blob",
    "plain",
    "samples_blob",
    "samples_blob_document",
    "samples_blob_from_document",
    "samples_from_blob",
    "samples_from_document",
    "samples_to_document",
]

SAMPLES_CODEC = "zlib+base64"


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""Made once: `json.dumps` with arguments makes an encoder per call."""


def dump_json(data: Any) -> bytes:
    """Compact UTF-8 JSON."""
    return _COMPACT.encode(data).encode("utf-8")


def plain(value: Any) -> Any:
    """A copy of `value` made of JSON types only (numpy scalars/arrays and paths converted)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    np = sys.modules.get("numpy")  # a numpy value implies numpy is loaded
    if np is not None and isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"cannot store a value of type {type(value).__name__}: {value!r}")


MAX_SAMPLES = 50_000_000
"""Most latency samples one run may hold (200 MB as float32)."""
MAX_LAYERS = 100_000
LAYER_BYTES = 16_384
"""Most bytes one layer's JSON row may take once inflated (names included)."""


def inflate(raw: bytes, limit: int, what: str) -> bytes:
    """zlib-decompress at most `limit` bytes; ValueError if the data holds more (or is cut),
    so a small blob that claims little but inflates to a lot costs only `limit` bytes."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(raw, limit)
    except zlib.error as exc:
        raise ValueError(f"undecodable {what} ({exc})") from None
    if inflater.unconsumed_tail:
        raise ValueError(f"{what} inflate to more than their count allows ({limit} bytes)")
    if not inflater.eof:
        raise ValueError(f"undecodable {what} (the compressed data is cut short)")
    return out


def samples_blob(samples_ms: np.ndarray | Sequence[float]) -> tuple[bytes, int]:
    """Latency samples as float32 little-endian, zlib-compressed; (blob, count)."""
    import numpy as np

    arr = np.ascontiguousarray(np.asarray(samples_ms, dtype="<f4").ravel())
    return zlib.compress(arr.tobytes(), 6), int(arr.size)


def _samples_raw(blob: bytes, count: int) -> bytes:
    """The inflated `samples_blob`; ValueError if it does not hold `count` samples."""
    raw = inflate(blob, count * 4, "samples")
    if len(raw) != count * 4:
        raise ValueError(f"samples count {count} does not match the data ({len(raw) / 4:g})")
    return raw


def samples_from_blob(blob: bytes, count: int) -> np.ndarray:
    """The float32 array of `samples_blob`; ValueError if it does not hold `count` samples."""
    return SamplesBlob(blob, count, _samples_raw(blob, count)).array()


def samples_to_document(samples_ms: np.ndarray | Sequence[float]) -> dict[str, Any]:
    """Latency samples as a JSON-able dict: float32 little-endian -> zlib -> base64."""
    return _samples_document(*samples_blob(samples_ms))


def samples_blob_document(blob: bytes, count: int) -> dict[str, Any]:
    """A stored `samples_blob` as `samples_to_document` encodes it, without inflating it into
    an array and compressing it again (it is checked to hold `count` samples)."""
    _samples_raw(blob, count)
    return _samples_document(blob, count)


def _samples_document(blob: bytes, count: int) -> dict[str, Any]:
    data = base64.b64encode(blob).decode("ascii")
    return {"dtype": "float32", "codec": SAMPLES_CODEC, "count": count, "data": data}


class SamplesBlob(NamedTuple):
    """Stored samples (`samples_blob`) checked to hold `count` samples: stored as they are,
    not inflated into an array and compressed again (an import)."""

    blob: bytes
    count: int
    raw: bytes
    """The inflated samples."""

    def array(self) -> np.ndarray:
        import numpy as np

        return np.frombuffer(self.raw, dtype="<f4").astype(np.float32)


def samples_blob_from_document(doc: dict[str, Any]) -> SamplesBlob:
    """The blob that `samples_to_document` encoded; ValueError if the dict is not one (its
    count is checked before anything is inflated)."""
    if doc.get("codec") != SAMPLES_CODEC or doc.get("dtype") != "float32":
        raise ValueError(f"unknown samples encoding {doc.get('codec')!r}/{doc.get('dtype')!r}")
    count = doc.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_SAMPLES:
        raise ValueError(f"samples count {count!r} is not a whole number from 0 to {MAX_SAMPLES}")
    try:
        blob = base64.b64decode(doc["data"], validate=True)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"undecodable samples ({exc})") from None
    return SamplesBlob(blob, count, _samples_raw(blob, count))


def samples_from_document(doc: dict[str, Any]) -> np.ndarray:
    """The float32 array that `samples_to_document` encoded (see `samples_blob_from_document`)."""
    return samples_blob_from_document(doc).array()


def layers_blob(rows: Sequence[dict[str, Any]]) -> bytes:
    """A per-layer profile (`LayerProfile.to_dict()` rows, or an import's checked rows) as a
    zlib-compressed JSON list (one string, not hundreds of objects: small, fast to load)."""
    try:  # plain JSON already (an import): the same text without a copy
        text = json.dumps(rows, separators=(",", ":"), allow_nan=True)
    except TypeError:
        text = json.dumps(plain(rows), separators=(",", ":"))
    raw = text.encode("utf-8")
    if len(raw) > max(len(rows), 1) * LAYER_BYTES:  # `layers_from_blob` would refuse it
        raise ValueError(
            f"a profile of {len(rows)} layers takes {len(raw)} bytes, more than"
            f" {LAYER_BYTES} a layer"
        )
    return zlib.compress(raw, 6)


def layers_from_blob(blob: bytes, count: int) -> list[dict[str, Any]]:
    """The `LayerProfile.to_dict()` dicts of `layers_blob` (inflating at most what `count`
    layers may take)."""
    raw = inflate(blob, max(count, 1) * LAYER_BYTES, "layers")
    try:
        layers = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"undecodable layers ({type(exc).__name__})") from None
    if not isinstance(layers, list) or not all(isinstance(x, dict) for x in layers):
        raise ValueError("undecodable layers (not a list of objects)")
    if len(layers) != count:
        raise ValueError(f"layers count {count} does not match the data ({len(layers)})")
    return layers
