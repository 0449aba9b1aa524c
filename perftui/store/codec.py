"""How values are stored as JSON: plain JSON values, and the compact blobs of latency samples
and per-layer profiles (kept in the database and in exports, unlike the worker's wire format
in perftui.bench.protocol)."""

from __future__ import annotations

import base64
import json
import os
import zlib
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from perftui.domain.records import LayerProfile

__all__ = [
    "LAYERS_CODEC",
    "SAMPLES_CODEC",
    "layers_from_document",
    "layers_to_document",
    "plain",
    "samples_from_document",
    "samples_to_document",
]

SAMPLES_CODEC = "zlib+base64"
LAYERS_CODEC = "json+zlib+base64"


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
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"cannot store a value of type {type(value).__name__}: {value!r}")


def samples_to_document(samples_ms: np.ndarray | Sequence[float]) -> dict[str, Any]:
    """Latency samples as a JSON-able dict: float32 little-endian -> zlib -> base64."""
    arr = np.ascontiguousarray(np.asarray(samples_ms, dtype="<f4").ravel())
    data = base64.b64encode(zlib.compress(arr.tobytes(), 6)).decode("ascii")
    return {"dtype": "float32", "codec": SAMPLES_CODEC, "count": int(arr.size), "data": data}


def samples_from_document(doc: dict[str, Any]) -> np.ndarray:
    """The float32 array that `samples_to_document` encoded; ValueError if the dict is not one."""
    if doc.get("codec") != SAMPLES_CODEC or doc.get("dtype") != "float32":
        raise ValueError(f"unknown samples encoding {doc.get('codec')!r}/{doc.get('dtype')!r}")
    try:
        raw = zlib.decompress(base64.b64decode(doc["data"], validate=True))
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise ValueError(f"undecodable samples ({exc})") from exc
    if len(raw) % 4:
        raise ValueError("undecodable samples (length is not a multiple of 4 bytes)")
    arr = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    if "count" in doc and int(doc["count"]) != arr.size:
        raise ValueError(f"samples count {doc['count']} does not match the data ({arr.size})")
    return arr


_LAYER_FIELDS = tuple(f.name for f in fields(LayerProfile))
"""The keys of `LayerProfile.to_dict()` (built by hand: `asdict` is slow for big profiles)."""


def layers_to_document(layers: Sequence[LayerProfile]) -> dict[str, Any]:
    """A per-layer profile as a JSON-able dict: JSON list -> zlib -> base64 (small, and fast
    to load: a profile of hundreds of layers is one string, not hundreds of objects)."""
    rows = [{name: getattr(layer, name) for name in _LAYER_FIELDS} for layer in layers]
    text = json.dumps(plain(rows), separators=(",", ":"))
    data = base64.b64encode(zlib.compress(text.encode("utf-8"), 6)).decode("ascii")
    return {"codec": LAYERS_CODEC, "count": len(layers), "data": data}


def layers_from_document(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The list of `LayerProfile.to_dict()` dicts that `layers_to_document` encoded."""
    if doc.get("codec") != LAYERS_CODEC:
        raise ValueError(f"unknown layers encoding {doc.get('codec')!r}")
    try:
        layers = json.loads(zlib.decompress(base64.b64decode(doc["data"], validate=True)))
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise ValueError(f"undecodable layers ({exc})") from exc
    if not isinstance(layers, list) or not all(isinstance(x, dict) for x in layers):
        raise ValueError("undecodable layers (not a list of objects)")
    return layers
