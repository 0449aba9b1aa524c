import pytest

from perftui.domain.errors import InputError
from perftui.domain.forms.options import (
    parse_choices,
    parse_int_or_auto,
    parse_positive_ints,
    parse_shapes,
)
from perftui.domain.settings import expand_matrix


def test_positive_int_lists():
    assert parse_positive_ints("1,4, 8", "batch") == [1, 4, 8]
    assert parse_positive_ints("2,2,1", "batch") == [2, 1]
    assert parse_positive_ints("0", "threads", allow_zero=True) == [0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0", "batch 0 is out of range"),
        ("-1", "batch -1 is out of range"),
        ("abc", "batch 'abc' is not a whole number"),
        ("1.5", "not a whole number"),
        ("", "batch is empty"),
    ],
)
def test_bad_batches(text, message):
    with pytest.raises(InputError, match=message):
        parse_positive_ints(text, "batch")


def test_int_or_auto():
    assert parse_int_or_auto("auto", "streams") == ["auto"]
    assert parse_int_or_auto("AUTO,2", "streams") == ["auto", 2]
    with pytest.raises(InputError, match="streams 0 is out of range"):
        parse_int_or_auto("0", "streams")


def test_choices():
    assert parse_choices("sync,async", "api", ("sync", "async")) == ["sync", "async"]
    with pytest.raises(InputError, match="unknown engine 'tensorflow'; choose from"):
        parse_choices("tensorflow", "engine", ("openvino", "onnxruntime"))


def test_shapes():
    assert parse_shapes(["input_ids[1,128]"]).inputs == {"input_ids": (1, 128)}
    assert parse_shapes(["a[1,3],b[2]", "c [4]"]).inputs == {"a": (1, 3), "b": (2,), "c": (4,)}
    assert parse_shapes(["/x/input:0[1,2]"]).inputs == {"/x/input:0": (1, 2)}
    for bad in ("input_ids", "x[1,a]", "x[0]", "x[1,2"):
        with pytest.raises(InputError):
            parse_shapes([bad])


def test_matrix_expansion_order_and_size():
    configs = expand_matrix({"batch": [1, 4], "threads": [1, 2]})
    assert [(c.batch, c.threads) for c in configs] == [(1, 1), (1, 2), (4, 1), (4, 2)]
    # per stream count: one sync run (one request in flight), an async run per request count
    mixed = expand_matrix({"streams": ["auto", 2], "requests": [1, 2], "api": ["sync", "async"]})
    assert [(c.streams, c.api, c.requests, c.hint) for c in mixed] == [
        ("auto", "sync", "auto", "latency"),
        ("auto", "async", 1, "throughput"),
        ("auto", "async", 2, "throughput"),
        (2, "sync", "auto", "latency"),
        (2, "async", 1, "throughput"),
        (2, "async", 2, "throughput"),
    ]
    assert {c.hint for c in expand_matrix({"hint": ["none"], "api": ["async"]})} == {"none"}
    with pytest.raises(InputError, match="unknown hint"):
        expand_matrix({"hint": ["fast"]})


def test_shape_dimensions_may_repeat():
    # a square image: 224 twice; a shape is not a list of settings, nothing is deduplicated
    assert parse_shapes(["input[1,3,224,224]"]).inputs == {"input": (1, 3, 224, 224)}
    assert parse_shapes(["a[2,2],b[1,1,1]"]).inputs == {"a": (2, 2), "b": (1, 1, 1)}
    assert parse_positive_ints("4,4,1", "batch") == [4, 1]  # settings still are
