"""Static input shapes for one run and the seeded input data that goes with them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from perftui.domain.errors import InputError
from perftui.domain.records import TensorSpec

INT_HIGH = 100
"""Integer inputs (token ids, indices) are drawn from [0, INT_HIGH) so that they stay valid
for any embedding table of at least that many rows."""


def _fmt(shape: Sequence[int | str]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def resolve_shapes(
    inputs: Sequence[TensorSpec], batch: int, user_shapes: Mapping[str, Sequence[int]]
) -> dict[str, tuple[int, ...]]:
    """Static shape of every input: the user's shape where given, else the model's, with the
    batch size as the first dimension. Any dimension still dynamic is an InputError."""
    names = [spec.name for spec in inputs]
    for name in user_shapes:
        if name not in names:
            raise InputError(
                f"--shape names input {name!r}, but the model's inputs are: {', '.join(names)}"
            )
    shapes: dict[str, tuple[int, ...]] = {}
    for spec in inputs:
        dims: list[int | str] = list(user_shapes.get(spec.name, spec.shape))
        if spec.name in user_shapes and len(dims) != len(spec.shape):
            raise InputError(
                f"--shape gives input {spec.name!r} {len(dims)} dimensions, but the model "
                f"declares {len(spec.shape)}: {_fmt(spec.shape)}"
            )
        if dims:
            dims[0] = batch
        dynamic = [d for d in dims if not isinstance(d, int) or d < 0]
        if dynamic:
            example = _fmt([d if isinstance(d, int) and d > 0 else 128 for d in dims])
            raise InputError(
                f"input {spec.name!r} has dynamic dimension {dynamic[0]!r} (shape "
                f"{_fmt(spec.shape)}); give it a size with --shape {spec.name}{example}"
            )
        shapes[spec.name] = tuple(int(d) for d in dims)
    return shapes


def make_feeds(
    inputs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]], seed: int
) -> dict[str, np.ndarray]:
    """Seeded random data of each input's dtype: floats uniform in [0, 1), integers in
    [0, INT_HIGH), booleans fair coin flips. Generated once, outside any timed loop."""
    rng = np.random.default_rng(seed)
    feeds: dict[str, np.ndarray] = {}
    for spec in inputs:
        shape = shapes[spec.name]
        dtype = np.dtype(spec.dtype)
        if dtype == np.bool_:
            data = rng.random(shape) < 0.5
        elif np.issubdtype(dtype, np.integer):
            data = rng.integers(0, INT_HIGH, size=shape).astype(dtype)
        else:
            data = rng.random(shape, dtype=np.float32).astype(dtype)
        feeds[spec.name] = data
    return feeds
