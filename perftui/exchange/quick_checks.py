"""Quick checks of the two bulkiest parts of an import's runs (layer profiles and free-form
values such as resolved settings): whether a value has the usual shape and fits
perftui.exchange.schema, in one pass without building field paths. A value that does not is
checked field by field there, which names the field."""

from __future__ import annotations

import math
from itertools import repeat
from operator import itemgetter
from typing import Any

__all__ = [
    "LAYER_STATUSES",
    "MAX_DEPTH",
    "MAX_ITEMS",
    "MAX_LAYERS",
    "MAX_TEXT",
    "NAME_MAX",
    "PRECISION_MAX",
    "TYPE_MAX",
    "plain_free",
    "plain_layers",
    "valid_unicode",
]

MAX_DEPTH = 12
"""Deepest nesting of a free-form value (notes, resolved settings)."""
MAX_TEXT = 65_536
MAX_ITEMS = 1_000_000
MAX_LAYERS = 100_000
"""Most rows of a layer profile (and original names of one row)."""
NAME_MAX, TYPE_MAX, PRECISION_MAX = 4096, 200, 64
"""Longest layer name (and original name), type or exec_type, and precision."""
LAYER_STATUSES = ("executed", "not_run", "optimized_out")


def valid_unicode(text: str) -> bool:
    """Whether `text` holds no lone surrogate (so it encodes as UTF-8)."""
    if text.isascii():  # a flag of the string: nothing to scan
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def plain_free(value: Any, depth: int) -> bool:
    """Whether `free` passes `value` (a quick check)."""
    if depth > MAX_DEPTH:
        return False
    kind = type(value)
    if kind is str:
        return len(value) <= MAX_TEXT and valid_unicode(value)
    if kind is dict:
        if len(value) > 10_000:
            return False
        for key, item in value.items():
            if type(key) is not str or len(key) > 200 or not valid_unicode(key):
                return False
            if not plain_free(item, depth + 1):
                return False
        return True
    if kind is list:
        return len(value) <= MAX_ITEMS and all(map(plain_free, value, repeat(depth + 1)))
    if kind is float:
        return math.isfinite(value)
    return kind in (int, bool, type(None))


_LAYER_FIELDS = ("name", "type", "exec_type", "precision", "status", "time_ms", "original_names")
_all_fields = itemgetter(*_LAYER_FIELDS)
_PASSING = {
    "exec_type": "",
    "precision": "",
    "status": "executed",
    "time_ms": 0.0,
    "original_names": [],
}
"""Values of the optional fields that pass, for a row without some of them."""


def plain_layers(rows: Any) -> bool:
    """Whether `rows` is a layer profile of the usual shape that fits `layers` (a quick
    check: one loop over the rows, each row's fields read at once)."""
    if type(rows) is not list or len(rows) > MAX_LAYERS:
        return False
    words: list[str] = []  # every text, looked at for lone surrogates once, at the end
    for row in rows:
        if type(row) is not dict:
            return False
        if len(row) < len(_LAYER_FIELDS):
            row = {**_PASSING, **row}  # a row without some of the optional fields
        if len(row) != len(_LAYER_FIELDS):
            return False  # a field besides these
        try:
            name, kind, exec_type, precision, status, time_ms, names = _all_fields(row)
        except KeyError:  # name or type missing, another field in its place
            return False
        if (
            not (type(name) is type(kind) is type(exec_type) is type(precision) is str)
            or len(name) > NAME_MAX
            or len(kind) > TYPE_MAX
            or len(exec_type) > TYPE_MAX
            or len(precision) > PRECISION_MAX
            or type(status) is not str
            or status not in LAYER_STATUSES
            or type(time_ms) not in (int, float)
            or not 0.0 <= time_ms <= 1e15  # NaN fails the range too
            or type(names) is not list
            or len(names) > MAX_LAYERS
        ):
            return False
        for original in names:
            if type(original) is not str or len(original) > NAME_MAX:
                return False
        words += (name, kind, exec_type, precision, *names)
    return valid_unicode("".join(words))
