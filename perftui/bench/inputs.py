"""Static input shapes for one run and the seeded input data that goes with them.

`INT_HIGH` is kept here for callers of the default rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from perftui.bench.data import InputData, check_shapes, load_data
from perftui.domain.errors import InputError
from perftui.domain.model.input_rules import DEFAULT, INT_HIGH, InputRule
from perftui.domain.model.shapes import ShapeBindings, as_bindings, bind_shapes, fmt_shape
from perftui.domain.records import RunConfig, TensorSpec


def resolve_shapes(
    inputs: Sequence[TensorSpec],
    batch: int,
    user_shapes: ShapeBindings | Mapping[str, Sequence[int]],
    point: Mapping[str, int] | None = None,
) -> dict[str, tuple[int, ...]]:
    """Static shape of every input: what `--shape` binds (`point`: the run's named dimensions,
    default the first value of each), with the batch size as the first dimension. A mapping is
    read as whole shapes per input name. Any dimension still dynamic is an InputError."""
    bound = bind_shapes(inputs, as_bindings(user_shapes), point, batch)
    shapes: dict[str, tuple[int, ...]] = {}
    for spec in inputs:
        dims = bound[spec.name]
        dynamic = [d for d in dims if not isinstance(d, int) or d < 0]
        if dynamic:
            named = next((d for d in dynamic if isinstance(d, str) and d != "?"), None)
            example = fmt_shape([d if isinstance(d, int) and d > 0 else 128 for d in dims])
            how = f"--shape {named}=128 (or " if named else "("
            raise InputError(
                f"input {spec.name!r} has dynamic dimension {dynamic[0]!r} (shape "
                f"{fmt_shape(spec.shape)}); give it a size with {how}--shape {spec.name}{example})"
            )
        shapes[spec.name] = tuple(int(d) for d in dims)
    return shapes


def run_point(config: RunConfig) -> dict[str, int] | None:
    """The named dimensions a run binds (None: the first value of each, for a config made
    without them)."""
    return dict(config.dims) or None


def make_feeds(
    inputs: Sequence[TensorSpec],
    shapes: Mapping[str, tuple[int, ...]],
    seed: int,
    rules: Mapping[str, InputRule] | None = None,
) -> dict[str, np.ndarray]:
    """Seeded data of each input's dtype and shape, made by its rule (`rules`, from
    perftui.inspection.input_rules; an input without one gets DEFAULT: floats uniform in
    [0, 1), integers in [0, INT_HIGH), booleans fair coin flips). Made once, outside any
    timed loop."""
    rng = np.random.default_rng(seed)
    return {
        spec.name: _values((rules or {}).get(spec.name, DEFAULT), spec, shapes[spec.name], rng)
        for spec in inputs
    }


def _values(
    rule: InputRule, spec: TensorSpec, shape: tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    dtype = np.dtype(spec.dtype)
    if rule.kind == "ones":
        return np.ones(shape, dtype)
    if rule.kind == "zeros":
        return np.zeros(shape, dtype)
    if rule.kind == "range":
        steps = np.arange(shape[-1] if shape else 1) % (rule.high or np.iinfo(np.int64).max)
        return np.broadcast_to(steps, shape).astype(dtype)
    if rule.kind == "indices":
        return rng.integers(rule.low, rule.high or INT_HIGH, size=shape).astype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, INT_HIGH, size=shape).astype(dtype)
    return rng.random(shape, dtype=np.float32).astype(dtype)


@dataclass(frozen=True)
class InputSource:
    """Where a benchmark's input data comes from: the person's own (`data`, --data), else
    seeded synthetic data made by each input's rule (`rules`)."""

    rules: Mapping[str, InputRule]
    data: InputData | None = None

    @classmethod
    def for_request(
        cls, model: str, data_path: str | None, inputs: Sequence[TensorSpec]
    ) -> InputSource:
        """The rules read from the model's graph (DEFAULT, saying why, where it cannot be
        read) and the --data samples; InputError for data that does not fit the model."""
        from perftui.inspection.input_roles import input_rules

        try:
            rules = input_rules(model)
        except Exception as error:  # the graph only refines the data; the default still runs
            reason = f"the graph could not be read ({type(error).__name__}): the default rule"
            rules = {spec.name: replace(DEFAULT, why=reason) for spec in inputs}
        return cls(rules, load_data(data_path, inputs) if data_path else None)

    def samples(
        self, inputs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]], seed: int
    ) -> list[dict[str, np.ndarray]]:
        """The samples a run binds (the first for sync requests and profiles)."""
        if self.data is not None:
            check_shapes(self.data, shapes, "the run")
            return list(self.data.samples)
        return [make_feeds(inputs, shapes, seed, self.rules)]

    def record(
        self, inputs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]]
    ) -> dict[str, Any]:
        """What the run keeps about its inputs: shape, dtype, values and why, per input."""
        out: dict[str, Any] = {}
        for spec in inputs:
            if self.data is not None:
                described = {
                    "values": "--data",
                    "why": f"{self.data.path} (sha256 {self.data.sha256[:12]})",
                }
            else:
                described = self.rules.get(spec.name, DEFAULT).to_dict(spec.dtype)
            out[spec.name] = {"shape": list(shapes[spec.name]), "dtype": spec.dtype, **described}
        return out
