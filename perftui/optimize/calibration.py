"""Calibration samples for static quantization, and the inputs of the accuracy check: the
shapes they are made at, seeded synthetic data, the memory they may take. A folder of the
user's samples is read by perftui.optimize.calibration_folder.

Synthetic samples are made as a benchmark makes them (`perftui.bench.inputs.make_feeds` with
the rules read from the graph: token ids within their embedding table, masks of ones, ...):
sample i of the calibration set uses seed ``seed + i``, sample i of the held-back accuracy
set ``seed + HELD_BACK_SEED_OFFSET + i``, so the two never share data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from perftui.bench.arrayfile import (
    Budget,
)
from perftui.bench.inputs import make_feeds, resolve_shapes
from perftui.domain.model.input_rules import InputRule
from perftui.domain.model.shapes import ShapeBindings
from perftui.domain.records import TensorSpec

Feeds = dict[str, np.ndarray]
"""One sample: an array per model input, batch 1."""

HELD_BACK_SEED_OFFSET = 1_000_000
"""Seed distance between the random calibration set and the held-back accuracy set."""


@dataclass(frozen=True)
class CalibrationSet:
    """Samples to calibrate (and, from a folder, to check accuracy) with."""

    samples: tuple[Feeds, ...]
    source: Literal["folder", "random"]
    folder: Path | None = None
    available: int = 0
    """Samples the folder holds (before `--samples` took the first N); for random data = len."""


# --------------------------------------------------------------------------- shapes
def calibration_shapes(
    inputs: Sequence[TensorSpec], user_shapes: ShapeBindings | Mapping[str, Sequence[int]]
) -> dict[str, tuple[int, ...]]:
    """Static shape of each input at batch 1 (`--shape` fills dynamic dims, as for `bench`).

    A first dimension the model fixes (e.g. a constant 3) is kept rather than forced to 1.
    """
    shapes = resolve_shapes(inputs, 1, user_shapes)
    for spec in inputs:
        first = spec.shape[0] if spec.shape else None
        if isinstance(first, int) and first > 0:
            shapes[spec.name] = (first, *shapes[spec.name][1:])
    return shapes


# --------------------------------------------------------------------------- random data
Rules = Mapping[str, InputRule] | None
"""Each input's value rule (perftui.bench.inputs.InputSource); None: the default rule."""


def random_samples(
    inputs: Sequence[TensorSpec],
    shapes: Mapping[str, tuple[int, ...]],
    count: int,
    seed: int,
    rules: Rules = None,
) -> tuple[Feeds, ...]:
    """`count` seeded random samples (sample i uses seed `seed + i`); InputError, before any
    is made, when they would take more memory than `calibration_budget` allows."""
    from perftui.bench.plan import input_bytes

    Budget(calibration_budget(), "random samples").take(
        count * input_bytes(inputs, shapes), f"--samples {count}"
    )
    return tuple(make_feeds(inputs, shapes, seed + i, rules) for i in range(count))


def random_calibration(
    inputs: Sequence[TensorSpec],
    shapes: Mapping[str, tuple[int, ...]],
    count: int,
    seed: int,
    rules: Rules = None,
) -> CalibrationSet:
    """Seeded random calibration samples."""
    samples = random_samples(inputs, shapes, count, seed, rules)
    return CalibrationSet(samples=samples, source="random", available=count)


def held_back_samples(
    inputs: Sequence[TensorSpec],
    shapes: Mapping[str, tuple[int, ...]],
    count: int,
    seed: int,
    rules: Rules = None,
) -> tuple[Feeds, ...]:
    """Seeded random samples for the accuracy check, disjoint in seed from the calibration set."""
    return random_samples(inputs, shapes, count, seed + HELD_BACK_SEED_OFFSET, rules)


CALIBRATION_BUDGET = 4 * 2**30
"""Bytes the calibration samples may take at most (a quarter of the memory available, less)."""


def calibration_budget() -> int:
    """Bytes the calibration samples (a folder's, or random ones) may take on this machine."""
    from perftui.bench.plan import available_memory

    available = available_memory()
    return CALIBRATION_BUDGET if available is None else min(CALIBRATION_BUDGET, available // 4)
