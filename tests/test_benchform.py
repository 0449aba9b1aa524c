"""The benchmark settings form: per-field reasons, presets, and the request it builds."""

from __future__ import annotations

import pytest

from perftui.domain.forms.bench import (
    DEFAULTS,
    PRESETS,
    build_request,
    check_field,
    form_errors,
    form_from_request,
    rerun_request,
)
from perftui.domain.forms.fields import FieldError
from perftui.domain.records import Budget, Project, RunConfig

PROJECT = Project("p", "/m.onnx", "onnxruntime")


@pytest.mark.parametrize(
    ("field", "text", "reason"),
    [
        ("batch", "1,x", "not a whole number"),
        ("batch", "", "empty"),
        ("batch", "0", "out of range"),
        ("threads", "auto,2", None),
        ("threads", "-1", "out of range"),
        ("streams", "auto,2", None),
        ("requests", "two", "not a whole number"),
        ("hint", "fast", "unknown hint"),
        ("api", "async,sync", None),
        ("precision", "f64", "unknown precision"),
        ("precision", "", None),
        ("time", "0", None),
        ("time", "-1", ">= 0"),
        ("time", "nan", ">= 0"),
        ("hint", "", None),
        ("hint", "auto", None),
        ("time", "ten", "not a number"),
        ("iterations", "1,2", "one whole number"),
        ("warmup", "0", None),
        ("shapes", "input_ids[1,128]", None),
        ("shapes", "input_ids(1,128)", "cannot read shape"),
    ],
)
def test_check_field(field: str, text: str, reason: str | None):
    found = check_field(field, text)
    if reason is None:
        assert found is None
    else:
        assert found is not None and reason in found


def test_defaults_are_valid_and_make_one_run():
    assert form_errors(DEFAULTS) == {}
    assert len(build_request(PROJECT, DEFAULTS).configs) == 1


def test_build_request_expands_the_matrix():
    values = {
        **DEFAULTS,
        "batch": "1,4",
        "threads": "auto,2",
        "time": "0.5",
        "iterations": "5",
        "warmup": "1",
        "shapes": "input_ids[1,128]",
        "precision": "f32",
    }
    request = build_request(PROJECT, values, profile=True)
    assert [(c.batch, c.threads) for c in request.configs] == [(1, 0), (1, 2), (4, 0), (4, 2)]
    assert request.budget == Budget(time_s=0.5, iterations=5, warmup=1, profile_iterations=50)
    assert request.shapes.inputs == {"input_ids": (1, 128)} and request.profile
    assert all(c.precision == "f32" for c in request.configs)


def test_build_request_names_the_bad_field():
    with pytest.raises(FieldError) as info:
        build_request(PROJECT, {**DEFAULTS, "iterations": "lots"})
    assert info.value.field == "iterations"


def test_presets_are_valid():
    for preset in PRESETS.values():
        assert form_errors({**DEFAULTS, **preset}) == {}
    throughput = build_request(PROJECT, {**DEFAULTS, **PRESETS["throughput"]})
    assert {c.api for c in throughput.configs} == {"async"}
    assert {c.batch for c in throughput.configs} == {1, 4}


def test_sync_runs_once_and_the_hint_follows_the_api():
    values = {**DEFAULTS, "api": "sync,async", "requests": "2,4", "hint": "auto"}
    request = build_request(PROJECT, values)
    assert [(c.api, c.requests, c.hint) for c in request.configs] == [
        ("sync", "auto", "latency"),
        ("async", 2, "throughput"),
        ("async", 4, "throughput"),
    ]
    assert form_from_request(request)["requests"] == "2,4"
    assert build_request(PROJECT, form_from_request(request)) == request
    chosen = build_request(PROJECT, {**values, "hint": "none"})
    assert {c.hint for c in chosen.configs} == {"none"}


def test_form_round_trips_a_request():
    values = {
        **DEFAULTS,
        "batch": "1,4",
        "threads": "auto,2",
        "hint": "throughput",
        "shapes": "a[1,3],b[2]",
        "time": "2.5",
        "repeat": "3",
    }
    request = build_request(PROJECT, values)
    again = form_from_request(request)
    assert request.repeat == 3
    assert build_request(PROJECT, again) == request
    assert again["threads"] == "auto,2" and again["time"] == "2.5"


def test_rerun_request_keeps_the_benchmark_budget():
    original = build_request(PROJECT, {**DEFAULTS, "time": "3", "shapes": "x[1,8]"}, profile=True)
    config = RunConfig(batch=8, threads=2)
    again = rerun_request(original, PROJECT, config)
    assert again.configs == (config,) and again.budget.time_s == 3 and again.profile
    assert again.shapes.inputs == {"x": (1, 8)}
    assert rerun_request(None, PROJECT, config).budget == Budget()


OPENVINO = Project("ov", "/m.xml", "openvino")
TYPED: list[dict[str, str]] = [
    {"batch": "4,1,8"},
    {"threads": "auto,2"},
    {"streams": "auto,2"},
    {"api": "async", "requests": "2,auto"},
    {"hint": "auto"},
    {"hint": "auto", "api": "async"},
    {"hint": "auto", "api": "sync,async"},
    {"hint": "latency", "api": "async"},
    {"hint": "throughput,none"},
    {"api": "async,sync"},
    {"precision": "bf16"},
    {"pinning": "on,auto"},
    {"rate": "200,closed,50"},
    {"rate": "100.5", "arrival": "constant"},
    {"time": "1234567"},
    {"time": "0.25"},
    {"iterations": "12345"},
    {"warmup": "0"},
    {"profile_iterations": "7"},
    {"repeat": "5"},
    {"shapes": "seq=64,128"},
    {"shapes": "a[1,3],b[2]"},
]


@pytest.mark.parametrize("typed", TYPED, ids=lambda t: ";".join(f"{k}={v}" for k, v in t.items()))
def test_a_reopened_form_shows_every_field_as_typed(typed: dict[str, str]):
    """Every field of a stored request comes back as it was typed (a reopened form that said
    `latency` where `auto` was typed rebuilt the same runs but not the same form)."""
    values = {**DEFAULTS, **typed}
    request = build_request(OPENVINO, values)
    assert form_from_request(request) == values
    assert build_request(OPENVINO, form_from_request(request)) == request


def test_every_field_has_a_round_trip_case():
    assert {name for typed in TYPED for name in typed} == set(DEFAULTS)
