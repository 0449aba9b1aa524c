"""Input shapes as a person gives them (`--shape`, the dashboard's Shapes field) and their
binding to a model's declared inputs.

Three forms, mixed freely, separated by commas or given as separate flags:

* ``NAME[d1,d2,...]``: the whole shape of input NAME;
* ``[d1,d2,...]``: the whole shape of every input (benchmark_app's form), where that is
  unambiguous: the model has one input, or all its inputs have the same rank;
* ``DIM=v`` or ``DIM=v1,v2,...``: a symbolic dimension, bound in every input that declares it;
  a list is a matrix axis (one run per value, like the batch sizes).

A benchmark's first dimension is always its batch size (``--batch``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import InputError

if TYPE_CHECKING:  # records imports this module
    from perftui.domain.records import TensorSpec

__all__ = [
    "DimPoint",
    "ShapeBindings",
    "as_bindings",
    "bind_shapes",
    "fmt_shape",
    "parse_shapes",
]

DimPoint = tuple[tuple[str, int], ...]
"""One value per bound dimension name, e.g. (("seq", 128),): a point of the shape axis."""

_ITEM = re.compile(
    r"\s*(?:(?P<name>[^\[\],=]*?)\s*\[(?P<dims>[^\]]*)\]"
    r"|(?P<dim>[^\[\],=]+?)\s*=\s*(?P<values>[^\[\],=]*(?:,\s*\d+\s*(?=,|$))*))\s*"
)


def fmt_shape(shape: Sequence[int | str]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def shapes_text(shapes: Mapping[str, Sequence[int | str]]) -> str:
    """Whole input shapes in words: 'input_ids[1,128], attention_mask[1,128]'."""
    return ", ".join(f"{name}{fmt_shape(dims)}" for name, dims in shapes.items())


def _whole_numbers(text: str, what: str) -> tuple[int, ...]:
    values = []
    for item in (part.strip() for part in text.split(",")):
        if not item.isdigit():
            raise InputError(f"{what} {item!r} is not a whole number; give whole numbers >= 1")
        if int(item) < 1:
            raise InputError(f"{what} {int(item)} is out of range; give whole numbers >= 1")
        values.append(int(item))
    return tuple(values)


@dataclass(frozen=True)
class ShapeBindings:
    """What `--shape` said, before it meets a model."""

    inputs: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """NAME[d1,...]: one input's whole shape."""
    every: tuple[int, ...] | None = None
    """[d1,...]: the shape of every input."""
    dims: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """DIM=v1,v2: the values of a named dimension, each a point of the matrix."""

    def __bool__(self) -> bool:
        return bool(self.inputs or self.every or self.dims)

    def points(self) -> list[DimPoint]:
        """Every combination of the dimension values, in the order typed; [()] for none."""
        names = list(self.dims)
        return [
            tuple(zip(names, combo, strict=True))
            for combo in itertools.product(*self.dims.values())
        ]

    def first_point(self) -> dict[str, int]:
        """The first value of each named dimension (where one point is wanted)."""
        return {name: values[0] for name, values in self.dims.items()}

    def text(self) -> str:
        """The typed form that parses back to these bindings."""
        parts = [f"{name}{fmt_shape(dims)}" for name, dims in self.inputs.items()]
        if self.every is not None:
            parts.append(fmt_shape(self.every))
        parts += [f"{name}={','.join(map(str, v))}" for name, v in self.dims.items()]
        return ",".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "inputs": {k: list(v) for k, v in self.inputs.items()},
            "every": list(self.every) if self.every is not None else None,
            "dims": {k: list(v) for k, v in self.dims.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ShapeBindings:
        """Also reads the older stored form, a mapping of input name to shape."""
        data = dict(data or {})
        if set(data) != {"inputs", "every", "dims"}:
            return cls(inputs={k: tuple(v) for k, v in data.items()})
        every = data.get("every")
        return cls(
            inputs={k: tuple(v) for k, v in (data.get("inputs") or {}).items()},
            every=tuple(every) if every is not None else None,
            dims={k: tuple(v) for k, v in (data.get("dims") or {}).items()},
        )


def as_bindings(shapes: ShapeBindings | Mapping[str, Sequence[int]] | None) -> ShapeBindings:
    """Bindings as they are, or a mapping of input name to whole shape read as bindings."""
    if isinstance(shapes, ShapeBindings):
        return shapes
    return ShapeBindings(
        inputs={str(k): tuple(int(d) for d in v) for k, v in (shapes or {}).items()}
    )


def parse_shapes(specs: Iterable[str]) -> ShapeBindings:
    """['input_ids[1,128]', 'seq=64,128', '[1,128]'] -> ShapeBindings; InputError (one line)
    for text that is none of the three forms, or a dimension below 1."""
    inputs: dict[str, tuple[int, ...]] = {}
    dims: dict[str, tuple[int, ...]] = {}
    every: tuple[int, ...] | None = None
    for spec in specs:
        text, pos = spec.strip(), 0
        while pos < len(text):
            match = _ITEM.match(text, pos)
            if match is None or match.end() == pos:
                raise InputError(
                    f"cannot read shape {spec!r}; write NAME[d1,d2,...] (e.g. input_ids[1,128]),"
                    " DIM=N (e.g. seq=128) or [d1,d2,...]"
                )
            if match.group("dim") is not None:
                name = match.group("dim").strip()
                values = _whole_numbers(match.group("values"), f"dimension {name!r}")
                dims[name] = tuple(dict.fromkeys(values))  # a list of settings: no repeats
            elif match.group("name"):
                name = match.group("name")
                # dimensions repeat (224x224): never deduplicate them like a list of settings
                inputs[name] = _whole_numbers(match.group("dims"), f"shape of {name!r}")
            else:
                every = _whole_numbers(match.group("dims"), "shape")
            pos = match.end()
            if pos < len(text) and text[pos] == ",":
                pos += 1
    return ShapeBindings(inputs=inputs, every=every, dims=dims)


def _dimension_names(inputs: Sequence[TensorSpec]) -> dict[str, list[int]]:
    """Each symbolic dimension name -> the positions it takes in the inputs that declare it."""
    names: dict[str, list[int]] = {}
    for spec in inputs:
        for i, dim in enumerate(spec.shape):
            if isinstance(dim, str) and dim != "?":
                names.setdefault(dim, []).append(i)
    return names


def _check_names(inputs: Sequence[TensorSpec], bindings: ShapeBindings, batch: bool) -> None:
    input_names = [spec.name for spec in inputs]
    dim_names = _dimension_names(inputs)
    for name in bindings.inputs:
        if name not in input_names:
            raise InputError(
                f"--shape names input {name!r}, but the model's inputs are: "
                + ", ".join(input_names)
            )
    for name in bindings.dims:
        if name in input_names and name in dim_names:
            raise InputError(
                f"--shape {name}=... is ambiguous: {name!r} names both an input and a dimension; "
                f"give the input's whole shape, {name}[d1,d2,...]"
            )
        if name not in dim_names:
            known = ", ".join(dim_names) or "none (give NAME[d1,d2,...] per input)"
            raise InputError(
                f"--shape {name}=... names no dimension of the model; its named dimensions: {known}"
            )
        if batch and set(dim_names[name]) == {0}:
            raise InputError(f"{name!r} is the batch dimension; give it with --batch")
    if bindings.every is not None and len({len(spec.shape) for spec in inputs}) > 1:
        ranks = ", ".join(f"{spec.name}{fmt_shape(spec.shape)}" for spec in inputs)
        raise InputError(
            f"--shape {fmt_shape(bindings.every)} is ambiguous: the inputs have different ranks "
            f"({ranks}); give NAME[d1,...] per input, or DIM=N"
        )


def bind_shapes(
    inputs: Sequence[TensorSpec],
    bindings: ShapeBindings,
    point: Mapping[str, int] | None = None,
    batch: int | None = None,
) -> dict[str, tuple[int | str, ...]]:
    """Each input's shape with what `bindings` fix: whole shapes, then the dimensions named in
    `point` (default: the first value of each), then `batch` as the first dimension. Dimensions
    nothing binds stay as the model declares them (a name, "?" or -1).

    InputError for an unknown input or dimension name, a name that is both, `[...]` where the
    inputs' ranks differ, a shape of the wrong rank, a dimension name that is the batch when a
    batch is given, or a whole shape that disagrees with a bound dimension."""
    _check_names(inputs, bindings, batch is not None)
    values = bindings.first_point() if point is None else dict(point)
    shapes: dict[str, tuple[int | str, ...]] = {}
    for spec in inputs:
        given = bindings.inputs.get(spec.name, bindings.every)
        if given is not None and len(given) != len(spec.shape):
            raise InputError(
                f"--shape gives input {spec.name!r} {len(given)} dimensions, but the model "
                f"declares {len(spec.shape)}: {fmt_shape(spec.shape)}"
            )
        dims: list[int | str] = list(given if given is not None else spec.shape)
        for i, declared in enumerate(spec.shape):
            if isinstance(declared, str) and declared in values:
                if given is not None and given[i] != values[declared] and i > 0:
                    raise InputError(
                        f"--shape {spec.name}{fmt_shape(given)} and {declared}="
                        f"{values[declared]} disagree on dimension {i} of {spec.name!r}"
                    )
                dims[i] = values[declared]
        if batch is not None and dims:
            dims[0] = batch
        shapes[spec.name] = tuple(dims)
    return shapes
