"""Quick checks of the two bulkiest parts of an import's runs (layer profiles and free-form
values such as resolved settings): whether a value has the usual shape and fits
perftui.exchange.schema, in one pass without building field paths. A value that does not is
checked field by field there, which names the field."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["LAYER_STATUSES", "MAX_DEPTH", "MAX_ITEMS", "MAX_TEXT", "plain_free", "plain_layer"]

MAX_DEPTH = 12
"""Deepest nesting of a free-form value (notes, resolved settings)."""
MAX_TEXT = 65_536
MAX_ITEMS = 1_000_000
LAYER_STATUSES = ("executed", "not_run", "optimized_out")


def plain_free(value: Any, depth: int) -> bool:
    """Whether `free` passes `value` (a quick check; lone surrogates not looked for)."""
    if depth > MAX_DEPTH:
        return False
    kind = type(value)
    if kind is str:
        return len(value) <= MAX_TEXT
    if kind is dict:
        return len(value) <= 10_000 and all(
            type(k) is str and len(k) <= 200 and plain_free(v, depth + 1) for k, v in value.items()
        )
    if kind is list:
        return len(value) <= MAX_ITEMS and all(plain_free(v, depth + 1) for v in value)
    if kind is float:
        return math.isfinite(value)
    return kind in (int, bool, type(None))


_LAYER_TEXT = {"name": 4096, "type": 200, "exec_type": 200, "precision": 64}


def plain_layer(doc: Any) -> bool:
    """Whether a layer row is of the usual shape and fits `layer` (a quick check)."""
    if not isinstance(doc, dict) or "name" not in doc or "type" not in doc:
        return False
    words: list[str] = []
    for key, value in doc.items():
        limit = _LAYER_TEXT.get(key)
        if limit is not None:
            if type(value) is not str or len(value) > limit:
                return False
            words.append(value)
        elif key == "time_ms":
            if type(value) not in (int, float) or not 0.0 <= value <= 1e15:
                return False  # NaN fails the range too
        elif key == "status":
            if value not in LAYER_STATUSES or type(value) is not str:
                return False
        elif key == "original_names":
            if type(value) is not list or len(value) > 100_000:
                return False
            if any(type(n) is not str or len(n) > 4096 for n in value):
                return False
            words.extend(value)
        else:
            return False
    try:
        "".join(words).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
