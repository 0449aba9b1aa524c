"""How values are stored as JSON: plain JSON values, and latency samples as an export carries
them (float32 little-endian, zlib, base64; unlike the worker's wire format in
perftui.bench.protocol)."""

from __future__ import annotations

import base64
import json
import os
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "LAYER_BYTES",
    "MAX_LAYERS",
    "MAX_SAMPLES",
    "SAMPLES_CODEC",
    "SamplesBlob",
    "dump_json",
    "plain",
    "samples_blob_from_document",
    "samples_from_document",
    "samples_to_document",
]

SAMPLES_CODEC = "zlib+base64"
MAX_SAMPLES = 50_000_000
"""Most latency samples one run may hold (200 MB as float32)."""
MAX_LAYERS = 100_000
LAYER_BYTES = 16_384
"""Most bytes one layer's JSON row may take (names included)."""

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


@dataclass(frozen=True)
class SamplesBlob:
    """An export's samples (zlib of float32 little-endian), checked to hold `count`."""

    blob: bytes
    count: int
    raw: bytes
    """The inflated samples."""

    def array(self) -> np.ndarray:
        import numpy as np

        return np.frombuffer(self.raw, dtype="<f4").astype(np.float32)


def samples_to_document(samples_ms: np.ndarray | Sequence[float]) -> dict[str, Any]:
    """Latency samples as a JSON-able dict: float32 little-endian -> zlib -> base64."""
    import numpy as np

    arr = np.ascontiguousarray(np.asarray(samples_ms, dtype="<f4").ravel())
    data = base64.b64encode(zlib.compress(arr.tobytes(), 6)).decode("ascii")
    return {"dtype": "float32", "codec": SAMPLES_CODEC, "count": int(arr.size), "data": data}


def samples_blob_from_document(doc: dict[str, Any]) -> SamplesBlob:
    """The blob that `samples_to_document` encoded; ValueError if the dict is not one (its
    count is checked before anything is inflated, and at most count samples are)."""
    if doc.get("codec") != SAMPLES_CODEC or doc.get("dtype") != "float32":
        raise ValueError(f"unknown samples encoding {doc.get('codec')!r}/{doc.get('dtype')!r}")
    count = doc.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_SAMPLES:
        raise ValueError(f"samples count {count!r} is not a whole number from 0 to {MAX_SAMPLES}")
    try:
        blob = base64.b64decode(doc["data"], validate=True)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"undecodable samples ({exc})") from None
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(blob, count * 4)
    except zlib.error as exc:
        raise ValueError(f"undecodable samples ({exc})") from None
    if inflater.unconsumed_tail:
        raise ValueError(f"samples inflate to more than their count allows ({count * 4} bytes)")
    if not inflater.eof:
        raise ValueError("undecodable samples (the compressed data is cut short)")
    if len(raw) != count * 4:
        raise ValueError(f"samples count {count} does not match the data ({len(raw) / 4:g})")
    return SamplesBlob(blob, count, raw)


def samples_from_document(doc: dict[str, Any]) -> np.ndarray:
    """The float32 array that `samples_to_document` encoded (see `samples_blob_from_document`)."""
    return samples_blob_from_document(doc).array()
