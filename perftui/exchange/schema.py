"""The schema of what crosses into the store from outside (an import): types, ranges and enums
for every field, with limits on sizes, nesting and numbers.

Each check takes a value and the path of the field (``projects[0].runs[3].config.batch``)
and returns the value (normalized where JSON has two spellings), or raises `SchemaError`
naming that field. A document that passes builds its records without a conversion error, so
nothing an import stores can later crash a reader.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from perftui.domain.errors import InputError
from perftui.domain.measurement.figures import PERCENTILES
from perftui.domain.measurement.statistic import LATENCY_NAMES
from perftui.domain.records import OPTIONAL_STATS, RUN_STATUSES
from perftui.domain.settings import SETTINGS, Stored
from perftui.domain.traffic.arrivals import MAX_RATE
from perftui.engines import ENGINES
from perftui.exchange.quick_checks import (
    LAYER_STATUSES,
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_LAYERS,
    MAX_TEXT,
    NAME_MAX,
    PRECISION_MAX,
    TYPE_MAX,
    plain_free,
    plain_layers,
    valid_unicode,
)
from perftui.store.layout import time_key

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "Check",
    "NumberError",
    "SchemaError",
    "benchmark",
    "decoder",
    "layer",
    "loads_bounded",
    "project",
    "run",
]

MAX_INT_DIGITS = 20
"""Longest whole number in a document (2**64 has 20 digits)."""
MAX_COUNT = 2**53
RUN_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
"""A run's or benchmark's id: it also names the run's payload files beside the database."""

Check = Callable[[Any, str], Any]


class SchemaError(InputError):
    """A value that does not fit the schema; the message names the field."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _fail(path: str, expected: str, value: Any) -> SchemaError:
    return SchemaError(f"{path}: expected {expected}, got {_shown(value)}")


def integer(lo: int, hi: int) -> Check:
    def check(value: Any, path: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise _fail(path, f"a whole number from {lo} to {hi}", value)
        return value

    return check


def number(lo: float = 0.0, hi: float = 1e15) -> Check:
    def check(value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(path, "a number", value)
        if not (math.isfinite(value) and lo <= value <= hi):
            raise _fail(path, f"a number from {lo:g} to {hi:g}", value)
        return float(value)

    return check


def _encodable(value: str, path: str) -> None:
    if not valid_unicode(value):
        raise SchemaError(f"{path}: text that is not valid Unicode (a lone surrogate)")


def text(max_len: int = MAX_TEXT, *, empty: bool = True, line: bool = False) -> Check:
    """A string; `line` forbids control characters (names shown in one table cell)."""

    def check(value: Any, path: str) -> str:
        if not isinstance(value, str) or len(value) > max_len or (not empty and not value.strip()):
            size = "" if empty else "non-empty "
            raise _fail(path, f"{size}text of at most {max_len} characters", value)
        _encodable(value, path)
        if line and any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise _fail(path, "text without control characters", value)
        return value

    return check


def identifier(value: Any, path: str) -> str:
    if not isinstance(value, str) or not (value == "" or RUN_ID.fullmatch(value)):
        raise _fail(path, "an id of letters, digits, '-' or '_' (at most 64)", value)
    return value


def timestamp(value: Any, path: str) -> str:
    if not isinstance(value, str) or (value and time_key(value) == float("-inf")):
        raise _fail(path, "an ISO-8601 time such as 2025-01-31T12:00:00+00:00", value)
    return value


def choice(values: tuple[Any, ...]) -> Check:
    def check(value: Any, path: str) -> Any:
        if not isinstance(value, (str, bool, type(None))) or value not in values:
            raise _fail(path, "one of " + ", ".join(str(v) for v in values), value)
        return value

    return check


def boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(path, "true or false", value)
    return value


def optional(inner: Check) -> Check:
    return lambda value, path: None if value is None else inner(value, path)


def auto_or(inner: Check) -> Check:
    return lambda value, path: value if value == "auto" else inner(value, path)


def either(first: Check, second: Check) -> Check:
    def check(value: Any, path: str) -> Any:
        try:
            return first(value, path)
        except SchemaError:
            return second(value, path)

    return check


def list_of(item: Check, max_items: int = MAX_ITEMS) -> Check:
    def check(value: Any, path: str) -> list[Any]:
        if not isinstance(value, list) or len(value) > max_items:
            raise _fail(path, f"a list of at most {max_items} items", value)
        return [item(x, f"{path}[{i}]") for i, x in enumerate(value)]

    return check


def mapping(key: Check, item: Check, max_items: int = 10_000) -> Check:
    def check(value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict) or len(value) > max_items:
            raise _fail(path, f"an object of at most {max_items} entries", value)
        return {key(k, f"{path} key"): item(v, f"{path}.{k}") for k, v in value.items()}

    return check


def free(value: Any, path: str, depth: int = 0) -> Any:
    """Any JSON value within the depth and size limits (unknown fields, notes, settings)."""
    if plain_free(value, depth):
        return value
    if depth > MAX_DEPTH:
        raise SchemaError(f"{path}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        return text()(value, path)
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(f"{path}: a number that is not finite")
    if isinstance(value, list):
        list_of(lambda v, p: v)(value, path)
        return [free(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        mapping(text(200), lambda v, p: v)(value, path)
        return {k: free(v, f"{path}.{k}", depth + 1) for k, v in value.items()}
    return value  # None, bool, int (bounded by loads_bounded)


def record(fields: Mapping[str, Check], required: tuple[str, ...] = ()) -> Check:
    """An object with typed `fields`; other keys must be free-form JSON (they are kept for
    versions that know them)."""

    def check(value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _fail(path, "an object", value)
        for key in required:
            if key not in value:
                raise SchemaError(f"{path}.{key}: missing")
        out = {}
        for key, item in value.items():
            where = f"{path}.{key}"
            out[key] = fields[key](item, where) if key in fields else free(item, where, 1)
        return out

    return check


name = text(200, empty=False, line=True)


def project_name(value: Any, path: str) -> str:
    """A project's name by the one rule of perftui.domain.names (no control, bidi or other
    character a terminal would act on)."""
    from perftui.domain.names import check_project_name

    try:
        return check_project_name(value)
    except InputError as exc:
        raise SchemaError(f"{path}: {exc}") from None


count = integer(0, MAX_COUNT)


def rate(most: float) -> Check:
    """Requests per second: above 0 (a rate of 0 offers nothing) and at most `most`."""
    within = number(0.0, most)

    def check(value: Any, path: str) -> float:
        found = within(value, path)
        if found <= 0:
            raise _fail(path, f"a rate above 0 and at most {most:g}", value)
        return found

    return check


def pair(end: Check) -> Check:
    """An interval's [lo, hi]: two ends, each `end` or null (an end the data cannot bound)."""
    ends = optional(end)

    def check(value: Any, path: str) -> list[Any]:
        if not isinstance(value, list) or len(value) != 2:
            raise _fail(path, "a list of two ends [lo, hi]", value)
        return [ends(x, f"{path}[{i}]") for i, x in enumerate(value)]

    return check


def _setting(stored: Stored) -> Check:
    """The check of a stored setting's value (perftui.domain.settings.Stored)."""
    found = {
        "count": lambda: integer(stored.least, stored.most),
        "count_or_auto": lambda: auto_or(integer(stored.least, stored.most)),
        "choice": lambda: choice(stored.choices),
        "dims": lambda: mapping(name, integer(stored.least, stored.most), 64),
        "rate": lambda: rate(stored.most),
    }[stored.kind]()
    return optional(found) if stored.optional else found


config = record({s.name: _setting(s.stored) for s in SETTINGS})

latency = record(
    {
        key: optional(number()) if key in OPTIONAL_STATS else number()
        for key in ("min", "mean", "median", "p90", "p99", "max", "stdev", "cv")
    }
)

layer = record(
    {
        "name": text(NAME_MAX),
        "type": text(TYPE_MAX),
        "exec_type": text(TYPE_MAX),
        "precision": text(PRECISION_MAX),
        "status": choice(LAYER_STATUSES),
        "time_ms": number(),
        "original_names": list_of(text(NAME_MAX), MAX_LAYERS),
    },
    required=("name", "type"),
)

_layers_checked = list_of(layer, MAX_LAYERS)


def layers(value: Any, path: str) -> list[dict[str, Any]]:
    """A run's layer profile: `layer` rows, checked quickly where each has the usual shape
    (the same result; a row that does not is checked field by field, naming the field)."""
    if not plain_layers(value):
        return _layers_checked(value, path)
    return _float_times(value)


def _float_times(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows that passed the quick check: a row whose time is a whole number is copied with
    it as a float, as `number` gives it; the others are the rows themselves."""
    return [
        row if type(row.get("time_ms", 0.0)) is float else {**row, "time_ms": float(row["time_ms"])}
        for row in value
    ]


RUN_FIELDS: dict[str, Check] = {
    "id": identifier,
    "project": text(200),
    "benchmark_id": identifier,
    "started_at": timestamp,
    "config": config,
    "status": choice(RUN_STATUSES),
    "error": optional(text()),
    "iterations": count,
    "duration_s": number(),
    "throughput_fps": number(),
    "first_inference_ms": number(),
    "compile_ms": number(),
    "read_ms": number(),
    "latency_ms": optional(latency),
    "layers": optional(layers),
    "resolved": optional(mapping(text(200), free)),
    "repeat": integer(0, 1_000_000),
    "window_fps": list_of(number(), 1_000_000),
    "load": optional(record({k: number() for k in ("total_s", "busy_s", "own_s", "steal_s")})),
    "memory": optional(mapping(text(64), optional(number(0, 1e12)))),
}
traffic = record(
    {
        "rate": rate(MAX_RATE),
        "offered_rate": number(0, 10 * MAX_RATE),
        "achieved_rate": number(0, 10 * MAX_RATE),
        "achieved_ci": optional(pair(number(-10 * MAX_RATE, 10 * MAX_RATE))),
        "latency_ms": mapping(choice(tuple(PERCENTILES)), number(), len(PERCENTILES)),
        "latency_ci_ms": mapping(choice(tuple(PERCENTILES)), pair(number()), len(PERCENTILES)),
        "queue_median_ms": optional(number()),
        "service_median_ms": optional(number()),
        "lateness_p99_ms": number(),
        "busy": number(0, 1e3),
        "requests": count,
        "completed": count,
        "saturated": boolean,
        "schedule_kept": boolean,
        "reasons": list_of(text(1000, line=True), 16),
        "window_s": number(0, 1e7),
    },
    required=("rate", "offered_rate", "achieved_rate"),
)
"""An open-loop run's figures (perftui.domain.traffic.figures.TrafficFigures.to_dict)."""
RUN_FIELDS["traffic"] = optional(traffic)
run = record(RUN_FIELDS, required=("config",))

project = record(
    {
        "name": project_name,
        "model": text(4096, empty=False),
        "engine": choice(ENGINES),
        "device": text(64, empty=False, line=True),
        "created_at": timestamp,
        "source_project": optional(project_name),
        "notes": mapping(text(200), free),
        "target": name,
        "runs": lambda value, path: list_of(lambda v, p: v)(value, path),
        "benchmarks": lambda value, path: list_of(lambda v, p: v)(value, path),
    },
    required=("name", "model", "engine"),
)

_objective = record(
    {"statistic": choice(LATENCY_NAMES), "bound_ms": number(1e-9, 1e9)},
    required=("statistic", "bound_ms"),
)


def _objectives(value: Any, path: str) -> list[Any]:
    """A capacity search's objectives: one to three, each statistic once."""
    found = list_of(_objective, len(LATENCY_NAMES))(value, path)
    names = [o["statistic"] for o in found]
    if not found or len(set(names)) != len(names):
        raise _fail(path, "one objective or more, each statistic once", value)
    return found


shape = list_of(either(integer(-1, 2**31 - 1), text(200, empty=False)), 64)
benchmark = record(
    {
        "id": identifier,
        "project_name": text(200),
        "created_at": timestamp,
        "project": project,
        "configs": list_of(config, 1_000_000),
        "budget": record(
            {
                "time_s": number(0, 1e7),
                "iterations": count,
                "warmup": count,
                "profile_iterations": count,
            }
        ),
        "shapes": optional(
            either(
                record(
                    {
                        "inputs": mapping(text(4096), shape),
                        "every": optional(shape),
                        "dims": mapping(name, list_of(integer(1, 2**31 - 1), 1000)),
                    },
                    required=("inputs", "every", "dims"),
                ),
                mapping(text(4096), shape),
            )
        ),
        "profile": boolean,
        "seed": integer(0, 2**32 - 1),
        "data": optional(text(4096)),
        "repeat": integer(1, 1_000_000),
        "capacity": optional(
            record(
                {
                    "objectives": _objectives,
                    "budget_s": number(0, 1e7),
                    "ended": boolean,
                    "stopped": optional(text(2000)),
                    "elapsed_s": optional(number(0, 1e9)),
                },
                required=("objectives", "budget_s"),
            )
        ),
    },
    required=("id", "project", "configs"),
)


class NumberError(ValueError):
    """A number no export holds (too many digits, not finite)."""


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise NumberError(f"a whole number of {len(digits)} digits (at most {MAX_INT_DIGITS})")
    return int(digits)


def _parse_float(spelled: str) -> float:
    value = float(spelled)
    if not math.isfinite(value):
        raise NumberError(f"a number too large to represent ({spelled[:20]})")
    return value


def _parse_constant(spelled: str) -> float:
    raise NumberError(f"{spelled} (not a JSON number)")


class _Hooks(TypedDict):
    parse_int: Callable[[str], Any]
    parse_float: Callable[[str], Any]
    parse_constant: Callable[[str], Any]


HOOKS: _Hooks = {
    "parse_int": _parse_int,
    "parse_float": _parse_float,
    "parse_constant": _parse_constant,
}


def decoder() -> json.JSONDecoder:
    """A JSON decoder raising NumberError for huge whole numbers, infinities and NaN."""
    return json.JSONDecoder(**HOOKS)


def loads_bounded(text: str | bytes, source: str) -> Any:
    """json.loads refusing huge whole numbers, infinities, NaN and deep nesting with one
    InputError line (they would otherwise end as a ValueError or RecursionError later)."""
    try:
        return json.loads(text, **HOOKS)
    except NumberError as exc:
        raise InputError(f"{source} holds {exc}") from None
    except RecursionError:
        raise InputError(f"{source} is nested too deeply") from None
