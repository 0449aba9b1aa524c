import numpy as np
import pytest

from perftui.bench.inputs import INT_HIGH, make_feeds, resolve_shapes
from perftui.domain.errors import InputError
from perftui.domain.records import TensorSpec

IMAGE = TensorSpec("input", "float32", ("batch", 3, 224, 224))
TOKENS = TensorSpec("input_ids", "int64", ("batch", "seq"))


def test_batch_fills_the_first_dimension():
    assert resolve_shapes([IMAGE], 4, {}) == {"input": (4, 3, 224, 224)}


def test_dynamic_dimension_needs_a_shape():
    with pytest.raises(InputError, match=r"'seq'.*--shape input_ids\[1,128\]"):
        resolve_shapes([TOKENS], 1, {})
    assert resolve_shapes([TOKENS], 2, {"input_ids": (1, 64)}) == {"input_ids": (2, 64)}


def test_shape_for_an_unknown_input_or_wrong_rank():
    with pytest.raises(InputError, match="model's inputs are: input_ids"):
        resolve_shapes([TOKENS], 1, {"ids": (1, 8)})
    with pytest.raises(InputError, match="3 dimensions"):
        resolve_shapes([TOKENS], 1, {"input_ids": (1, 8, 2)})


def test_feeds_have_the_right_dtype_shape_and_are_seeded():
    mask = TensorSpec("mask", "bool", (1, 8))
    specs = [IMAGE, TOKENS, mask]
    shapes = {"input": (2, 3, 224, 224), "input_ids": (2, 16), "mask": (2, 8)}
    feeds = make_feeds(specs, shapes, seed=3)
    assert feeds["input"].dtype == np.float32 and feeds["input"].shape == (2, 3, 224, 224)
    assert feeds["input_ids"].dtype == np.int64 and feeds["input_ids"].max() < INT_HIGH
    assert feeds["mask"].dtype == np.bool_
    again = make_feeds(specs, shapes, seed=3)
    assert all(np.array_equal(feeds[k], again[k]) for k in feeds)
    other = make_feeds(specs, shapes, seed=4)
    assert not np.array_equal(feeds["input"], other["input"])
