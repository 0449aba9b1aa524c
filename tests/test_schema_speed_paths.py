"""The quick paths of an import's checks and records give what the plain ones give: the
quick layer and free-form checks pass, refuse and name the field as the field-by-field
checks do, the second pass gives what the first gave, and the hand-written to_dict of a
run's records what dataclasses.asdict gave."""

from __future__ import annotations

import math
import re
from dataclasses import asdict
from typing import Any

import pytest

from perftui.domain.records import LatencyStats, LayerProfile, RunConfig, RunResult
from perftui.domain.settings import SETTINGS
from perftui.exchange import quick_checks, schema
from perftui.exchange.quick_checks import MAX_DEPTH, NAME_MAX, PRECISION_MAX, TYPE_MAX

FULL = {
    "name": "conv",
    "type": "Convolution",
    "exec_type": "jit_avx512",
    "precision": "I8",
    "status": "executed",
    "time_ms": 0.25,
    "original_names": ["a", "b"],
}


def _rows() -> list[Any]:
    """Layer rows of every kind: usual, partial, at and past each limit, of wrong types."""
    rows: list[Any] = [FULL, {"name": "n", "type": "t"}, {**FULL, "time_ms": 3}]
    for key in FULL:
        rows.append({k: v for k, v in FULL.items() if k != key})
    for key, limit in (
        ("name", NAME_MAX),
        ("type", TYPE_MAX),
        ("exec_type", TYPE_MAX),
        ("precision", PRECISION_MAX),
    ):
        for value in ("x" * limit, "x" * (limit + 1), "a\ud800", "\u00e9\u4e2d", 7, None, ["x"]):
            rows.append({**FULL, key: value})
    for value in (0, 1e15, 1e15 + 1, -0.1, math.nan, math.inf, True, "1", None, 2**60):
        rows.append({**FULL, "time_ms": value})
    for value in ("not_run", "optimized_out", "odd", "", None, 1, ["executed"], True):
        rows.append({**FULL, "status": value})
    for value in (
        [],
        ["x" * NAME_MAX],
        ["x" * (NAME_MAX + 1)],
        ["ok", "\udc00"],
        ["ok", 3],
        "ab",
        ("a",),
        None,
        [["a"]],
    ):
        rows.append({**FULL, "original_names": value})
    rows += [
        {**FULL, "extra": 1},
        {"name": "n", "type": "t", "extra": {"deep": [1]}},
        {"name": "n", "extra": 1, "other": 2, "more": 3, "again": 4, "last": 5, "x": 6},
        {"type": "t", "exec_type": "", "precision": "", "status": "executed", "time_ms": 1.0},
        {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7},
        {},
        "row",
        None,
        [FULL],
    ]
    return rows


def _outcome(check: Any, value: Any) -> tuple[str, Any]:
    try:
        return "passed", check(value, "x")
    except schema.SchemaError as exc:
        return "refused", str(exc)


ROWS = _rows()
FIELD_BY_FIELD = schema.list_of(schema.layer, quick_checks.MAX_LAYERS)


@pytest.mark.parametrize("row", ROWS, ids=[str(i) for i in range(len(ROWS))])
def test_the_quick_layer_check_agrees_with_the_field_by_field_one(row: Any) -> None:
    for rows in ([row], [FULL, row], [row, FULL]):
        quick, slow = _outcome(schema.layers, rows), _outcome(FIELD_BY_FIELD, rows)
        assert quick == slow
        if quick[0] == "passed":
            for got, want in zip(quick[1], slow[1], strict=True):
                assert [type(v) for v in got.values()] == [type(v) for v in want.values()]
        if quick_checks.plain_layers(rows):
            assert quick[0] == "passed"


def test_a_lone_surrogate_in_any_row_is_found_by_the_quick_check() -> None:
    rows = [dict(FULL) for _ in range(50)]
    assert quick_checks.plain_layers(rows)
    rows[37] = {**FULL, "original_names": ["a", "b\ud800"]}
    assert not quick_checks.plain_layers(rows)
    with pytest.raises(schema.SchemaError, match=re.escape("x[37].original_names[1]: text")):
        schema.layers(rows, "x")


def test_layer_times_come_out_as_floats() -> None:
    run = {
        "config": {"batch": 1},
        "throughput_fps": 3,
        "layers": [FULL, {**FULL, "time_ms": 2}, {"name": "n", "type": "t"}],
        "resolved": {"environment": {"isa": ["avx"], "cores": 2, "cpu": "\u00e9"}},
        "other": {"kept": [1, 2.5, None]},
    }
    checked = schema.run(run, "r")
    assert [type(row.get("time_ms")) for row in checked["layers"]] == [float, float, type(None)]


FREE = [
    "x",
    "x" * quick_checks.MAX_TEXT,
    "x" * (quick_checks.MAX_TEXT + 1),
    "\u00e9",
    "a\ud800",
    1,
    2.5,
    math.inf,
    math.nan,
    None,
    True,
    [1, "a", [None]],
    {"k": "\udc00"},
    {"\udc00": 1},
    {"k" * 200: 1},
    {"k" * 201: 1},
    {"a": {"b": [math.inf]}},
    ("a",),
    {1: 2},
]


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("value", [*FREE, _nested(MAX_DEPTH), _nested(MAX_DEPTH + 1)])
def test_the_quick_free_check_agrees_with_the_field_by_field_one(
    value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick = _outcome(schema.free, value)
    monkeypatch.setattr(schema, "plain_free", lambda value, depth: False)
    assert quick == _outcome(schema.free, value)


def test_text_with_a_lone_surrogate_is_refused_with_its_field() -> None:
    with pytest.raises(schema.SchemaError, match=r"^r\.k: text that is not valid Unicode"):
        schema.text()("ab\udfff", "r.k")
    assert schema.text()("\u00e9t\u00e9", "r.k") == "\u00e9t\u00e9"


CONFIGS = [
    RunConfig(),
    RunConfig(batch=4, threads=2, streams=3, requests=8, hint="throughput", api="async"),
    RunConfig(precision="bf16", dims=(("seq", 128), ("batch", 2))),
    RunConfig(pinning="off"),
]
STATS = [
    LatencyStats(1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 0.5, 0.1),
    LatencyStats(1.0, 2.0, 2.0, None, None, 5.0, None, None),
]


def _as_stored(config: RunConfig) -> dict[str, Any]:
    """asdict, less the settings added later that are at their default (stored only where set)."""
    later = [s.name for s in SETTINGS if not s.always_stored]
    found = {**asdict(config), "dims": dict(config.dims)}
    return {k: v for k, v in found.items() if k not in later or v != getattr(RunConfig(), k)}


@pytest.mark.parametrize("config", CONFIGS)
def test_a_config_as_a_dict_is_what_asdict_gave(config: RunConfig) -> None:
    want = _as_stored(config)
    assert list(config.to_dict().items()) == list(want.items())
    assert RunConfig.from_dict(config.to_dict()) == config


@pytest.mark.parametrize("stats", STATS)
def test_latency_as_a_dict_is_what_asdict_gave(stats: LatencyStats) -> None:
    assert list(stats.to_dict().items()) == list(asdict(stats).items())
    assert LatencyStats.from_dict(stats.to_dict()) == stats


LAYER_DOCS = [
    FULL,
    {"name": "n", "type": "t"},
    {**FULL, "time_ms": 3, "original_names": None},
    {"name": 5, "type": "t", "status": "not_run", "precision": None},
]


@pytest.mark.parametrize("doc", LAYER_DOCS)
def test_a_layer_is_read_as_before(doc: dict[str, Any]) -> None:
    want = LayerProfile(
        name=str(doc["name"]),
        type=str(doc["type"]),
        exec_type=str(doc.get("exec_type", "")),
        precision=str(doc.get("precision", "")),
        status=str(doc.get("status", "executed")),
        time_ms=float(doc.get("time_ms", 0.0)),
        original_names=tuple(doc.get("original_names") or ()),
    )
    got = LayerProfile.from_dict(doc)
    assert got == want
    assert [type(v) for v in asdict(got).values()] == [type(v) for v in asdict(want).values()]
    assert got.to_dict() == {**asdict(got), "original_names": list(got.original_names)}


def test_a_run_as_a_dict_is_what_asdict_gave_for_its_parts() -> None:
    layers = tuple(LayerProfile.from_dict(doc) for doc in LAYER_DOCS)
    for config in CONFIGS:
        for stats in (*STATS, None):
            run = RunResult(config=config, latency_ms=stats, layers=layers, id="r")
            doc = run.to_dict()
            assert doc["config"] == _as_stored(config)
            assert doc["latency_ms"] == (asdict(stats) if stats else None)
            assert RunResult.from_dict(doc) == run
