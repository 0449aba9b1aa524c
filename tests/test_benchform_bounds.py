"""Issue 12, 4-6: one precision that knows the engine, bounds on what cannot be meant, a
warning on what is merely long, and messages in the words of where they are shown."""

from __future__ import annotations

import pytest

from perftui.domain.forms.bench import (
    DEFAULTS,
    build_request,
    check_field,
    long_warning,
)
from perftui.domain.forms.fields import FieldError
from perftui.domain.records import Project
from perftui.engines.capabilities import ONNXRUNTIME, OPENVINO
from perftui.tui.kit.format import said

OV = Project("p", "/m.onnx", "openvino")
ORT = Project("q", "/m.onnx", "onnxruntime")


def test_precision_takes_one_value_and_knows_the_engine():
    assert "not a list" in (check_field("precision", "f16,bf16") or "")
    assert check_field("precision", "f16", OPENVINO) is None
    reason = check_field("precision", "f16", ONNXRUNTIME) or ""
    assert "needs the openvino engine" in reason and "--" not in reason
    assert check_field("precision", "f32", ONNXRUNTIME) is None
    with pytest.raises(FieldError) as error:
        build_request(ORT, {**DEFAULTS, "precision": "bf16"}, capabilities=ONNXRUNTIME)
    assert error.value.field == "precision"


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("time", "1e9"),
        ("warmup", "999999999999"),
        ("iterations", "10000000000"),
        ("threads", "100000"),
        ("requests", "100000"),
        ("streams", "auto,5000"),
        ("profile_iterations", "99999999999"),
        ("repeat", "5000"),
    ],
)
def test_what_cannot_be_meant_is_refused(field: str, text: str):
    reason = check_field(field, text) or ""
    assert "more than anyone means" in reason
    with pytest.raises(FieldError):
        build_request(OV, {**DEFAULTS, field: text})


def test_single_value_fields_say_one_number():
    for field in ("warmup", "iterations", "profile_iterations", "repeat"):
        reason = check_field(field, "x") or ""
        assert reason.startswith("one whole number") and "e.g. 1,4" not in reason


def test_a_long_benchmark_is_warned_about_not_refused():
    request = build_request(OV, {**DEFAULTS, "time": "1e6"})
    assert long_warning(request) == "this benchmark measures for at least about 12 days"
    assert long_warning(build_request(OV, DEFAULTS)) is None


def test_flags_read_as_field_labels_in_the_form():
    assert (
        said("give it a size with --shape input_ids[1,128]; or --precision f32 --xyz")
        == "give it a size with Shapes input_ids[1,128]; or Precision f32 --xyz"
    )


def test_a_slow_rate_s_window_counts_in_the_warning():
    """At 0.02/s the 100 iterations take 5,000 s to arrive: the window is that long."""
    assert long_warning(build_request(OV, {**DEFAULTS, "rate": "100"})) is None
    request = build_request(OV, {**DEFAULTS, "rate": "0.02"})
    assert long_warning(request) == "this benchmark measures for at least about 83 minutes"
