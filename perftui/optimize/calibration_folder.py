"""A folder of calibration samples (`optimize --calibration DIR`), every size checked before
any data is read.

A calibration folder holds one sample per entry, taken in natural name order (`s2` before
`s10`); hidden entries (names starting with ".") are ignored, anything else is an error:

- ``NAME.npy``: one array, for models with a single input.
- ``NAME.npz``: one array per input, keyed by input name (``np.savez(path, **{name: array})``).
- ``NAME/``: a sub-folder with one ``INPUT.npy`` per input.

An input name that cannot be a file name (``/``, ``:`` ...) may be written with those characters
replaced by ``_``. Each array has the input's shape at batch 1 (``[1,3,224,224]``), or that shape
without the batch dimension (``[3,224,224]``); where the model's batch dimension is dynamic it may
also hold a batch (``[8,3,224,224]``), which counts as that many samples (all inputs of one sample
must then agree on the batch). Numbers only: booleans, integers and floats are converted to the
input's dtype where that loses nothing (floats never become integers); NaN and infinity are refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from perftui.bench.arrayfile import (
    ArrayFileError,
    Budget,
    HeaderCheck,
    declared_bytes,
    read_npy,
    read_npz,
)
from perftui.domain.errors import InputError
from perftui.domain.model.shapes import fmt_shape
from perftui.domain.records import TensorSpec
from perftui.optimize.calibration import (
    CalibrationSet,
    Feeds,
    calibration_budget,
)

LAYOUT_HINT = (
    "put one .npy per sample (single-input models), or one .npz / sub-folder of INPUT.npy"
    " files per sample"
)


def _batch_is_dynamic(spec: TensorSpec) -> bool:
    return bool(spec.shape) and 0 in spec.dynamic_dims


def _natural_key(path: Path) -> list[int | str]:
    return [
        int(part) if part.isdigit() else part.casefold() for part in re.split(r"(\d+)", path.name)
    ]


def safe_name(name: str) -> str:
    """An input name as a file name: characters other than letters, digits, '.', '-' and '_'
    become '_'."""
    return re.sub(r"[^\w.-]", "_", name)


def _load_npy(path: Path, where: str, check: HeaderCheck) -> np.ndarray:
    """The array of one .npy file, its header passed to `check` before its data is read."""
    try:
        with path.open("rb") as f:
            magic = f.read(6)
    except OSError as exc:
        raise InputError(f"cannot read calibration file {where} ({exc.strerror or exc})") from None
    if magic[:2] == b"PK":
        raise InputError(f"calibration file {where} is an .npz archive; name it .npz")
    if magic != b"\x93NUMPY":
        raise InputError(
            f"calibration file {where} is not a .npy array (no NumPy header); save samples"
            " with numpy.save"
        )
    try:
        return read_npy(path, check)
    except ArrayFileError as exc:
        raise InputError(f"cannot read calibration file {where} as a .npy array ({exc})") from None


def _checker(
    inputs: Sequence[TensorSpec], shapes: Mapping, where: str, budget: Budget, key: str = ""
) -> HeaderCheck:
    """Refuses an array from its header: a shape `_as_batch` would refuse, a dtype that is
    not numbers, more bytes than the folder's budget. `key` names the input of a .npy."""
    specs = {k: spec for spec in inputs for k in (spec.name, safe_name(spec.name))}

    def check(name: str, shape: tuple[int, ...], dtype: np.dtype) -> None:
        spec = specs.get(name or key) or (inputs[0] if len(inputs) == 1 else None)
        if spec is None:
            return
        if dtype.kind not in "biuf":
            raise InputError(
                f"calibration file {where} holds {dtype} data, not numbers;"
                f" input {spec.name!r} takes {spec.dtype}"
            )
        _as_batch(np.broadcast_to(np.empty((), np.uint8), shape), spec, shapes[spec.name], where)
        budget.take(declared_bytes(shape, dtype), f"calibration file {where}")

    return check


def _coerce(array: np.ndarray, spec: TensorSpec, where: str) -> np.ndarray:
    """`array` as the input's dtype; InputError where that would change its meaning."""
    try:
        target = np.dtype(spec.dtype)
    except TypeError:
        raise InputError(
            f"input {spec.name!r} has dtype {spec.dtype}, which calibration data cannot provide"
        ) from None
    kind = array.dtype.kind
    if kind not in "biuf":
        raise InputError(
            f"calibration file {where} holds {array.dtype} data, not numbers;"
            f" input {spec.name!r} takes {target}"
        )
    if target.kind == "f":
        if kind == "f" and not np.isfinite(array).all():
            raise InputError(f"calibration file {where} contains NaN or infinity")
        return array.astype(target, copy=False)
    if target.kind == "b":
        if kind == "b" or (kind in "iu" and np.isin(array, (0, 1)).all()):
            return array.astype(target, copy=False)
        raise InputError(
            f"calibration file {where} holds {array.dtype} data; input {spec.name!r} takes"
            " booleans (save a bool array, or 0/1 integers)"
        )
    if target.kind in "iu":
        if kind == "f":
            raise InputError(
                f"calibration file {where} holds {array.dtype} values; input {spec.name!r}"
                f" takes {target} (save integer data)"
            )
        if array.size and kind != "b":
            info = np.iinfo(target)
            low, high = int(array.min()), int(array.max())
            if low < info.min or high > info.max:
                raise InputError(
                    f"calibration file {where} has values {low}..{high}, outside the range"
                    f" of input {spec.name!r} ({target})"
                )
        return array.astype(target, copy=False)
    raise InputError(
        f"input {spec.name!r} has dtype {target}, which calibration data cannot provide"
    )


def _as_batch(
    array: np.ndarray, spec: TensorSpec, shape: tuple[int, ...], where: str
) -> np.ndarray:
    """`array` with a leading batch dimension (1, or k where the model's batch is dynamic)."""
    if array.shape == shape:
        return array
    if shape and shape[0] == 1 and array.shape == shape[1:]:
        return array[np.newaxis]
    if (
        shape
        and _batch_is_dynamic(spec)
        and array.ndim == len(shape)
        and array.shape[1:] == shape[1:]
        and array.shape[0] >= 1
    ):
        return array
    options = [fmt_shape(shape)]
    if shape and shape[0] == 1:
        options.append(f"{fmt_shape(shape[1:])} without the batch dimension")
        if _batch_is_dynamic(spec):
            options.append("[N," + ",".join(str(d) for d in shape[1:]) + "] for N samples")
    raise InputError(
        f"calibration file {where} has shape {fmt_shape(array.shape)}, but input {spec.name!r}"
        f" needs {', or '.join(options)}"
    )


def _split(
    arrays: Mapping[str, np.ndarray], inputs: Sequence[TensorSpec], shapes: Mapping, where: str
) -> list[Feeds]:
    """Validate one entry's arrays and split it into batch-1 samples."""
    batched = {
        spec.name: _as_batch(
            _coerce(arrays[spec.name], spec, where), spec, shapes[spec.name], where
        )
        for spec in inputs
    }
    dynamic = {spec.name for spec in inputs if _batch_is_dynamic(spec)}
    sizes = {name: a.shape[0] for name, a in batched.items() if name in dynamic}
    if len(set(sizes.values())) > 1:
        detail = ", ".join(f"{name}: {n}" for name, n in sizes.items())
        raise InputError(
            f"calibration sample {where} has inputs with different batch sizes ({detail})"
        )
    count = next(iter(sizes.values()), 1)
    if count == 1:
        return [batched]
    # A batch of k: k samples whose first dimension is the model's (batch 1).
    return [
        {name: a[i : i + 1] if name in dynamic else a for name, a in batched.items()}
        for i in range(count)
    ]


def _match_inputs(
    found: Mapping[str, object], inputs: Sequence[TensorSpec], where: str, what: str
) -> dict[str, str]:
    """Map each input name to the key in `found` that holds it (exact or `safe_name`)."""
    mapping: dict[str, str] = {}
    for spec in inputs:
        for key in (spec.name, safe_name(spec.name)):
            if key in found:
                mapping[spec.name] = key
                break
        else:
            names = ", ".join(sorted(found)) or "nothing"
            raise InputError(
                f"calibration sample {where} has no {what} for input {spec.name!r} (found: {names})"
            )
    extra = sorted(set(found) - set(mapping.values()))
    if extra:
        wanted = ", ".join(spec.name for spec in inputs)
        raise InputError(
            f"calibration sample {where} has {what} {extra[0]!r}, which is not a model input"
            f" (inputs: {wanted})"
        )
    return mapping


def _load_entry(
    entry: Path, inputs: Sequence[TensorSpec], shapes: Mapping, folder: Path, budget: Budget
) -> list[Feeds]:
    where = f"{folder.name}/{entry.name}"
    if entry.is_dir():
        files = {p.stem: p for p in entry.iterdir() if not p.name.startswith(".")}
        odd = sorted(p.name for p in files.values() if p.suffix.lower() != ".npy" or p.is_dir())
        if odd:
            raise InputError(
                f"calibration sample {where}/ contains {odd[0]!r}, which is not a .npy file"
                " (a sample folder holds one INPUT.npy per input)"
            )
        mapping = _match_inputs(files, inputs, where + "/", "file")
        arrays = {
            name: _load_npy(
                files[key],
                f"{where}/{files[key].name}",
                _checker(inputs, shapes, f"{where}/{files[key].name}", budget, name),
            )
            for name, key in mapping.items()
        }
        return _split(arrays, inputs, shapes, where + "/")
    suffix = entry.suffix.lower()
    if suffix == ".npy":
        if len(inputs) != 1:
            names = ", ".join(spec.name for spec in inputs)
            raise InputError(
                f"calibration file {where} holds one array, but the model has {len(inputs)}"
                f" inputs ({names}); give one .npz or sub-folder of INPUT.npy files per sample"
            )
        array = _load_npy(entry, where, _checker(inputs, shapes, where, budget))
        return _split({inputs[0].name: array}, inputs, shapes, where)
    if suffix == ".npz":
        try:
            stored = read_npz(entry, _checker(inputs, shapes, where, budget))
        except ArrayFileError as exc:
            raise InputError(
                f"cannot read calibration file {where} as an .npz archive ({exc})"
            ) from None
        mapping = _match_inputs(stored, inputs, where, "array")
        return _split({n: stored[k] for n, k in mapping.items()}, inputs, shapes, where)
    raise InputError(
        f"calibration folder {folder} contains {entry.name!r}, which is not a .npy or .npz"
        f" file; move it out ({LAYOUT_HINT})"
    )


def load_calibration_folder(
    folder: str | Path,
    inputs: Sequence[TensorSpec],
    shapes: Mapping[str, tuple[int, ...]],
    limit: int | None = None,
) -> CalibrationSet:
    """Read and validate a calibration folder (layout in the module docstring).

    `shapes` are the inputs' static shapes at batch 1 (`calibration_shapes`); `limit` takes
    the first N samples. Every entry is checked, even past the limit, so a bad file is found
    now rather than on a later run with a larger `--samples`. InputError (one line) for a
    missing or empty folder, a file that is not numeric .npy/.npz data, or a wrong shape.
    """
    path = Path(folder).expanduser()
    if not path.exists():
        raise InputError(f"calibration folder not found: {path}")
    if not path.is_dir():
        raise InputError(f"--calibration needs a folder of .npy files, but {path} is a file")
    if not inputs:
        raise InputError("the model has no inputs to calibrate")
    try:
        entries = sorted(
            (p for p in path.iterdir() if not p.name.startswith(".")), key=_natural_key
        )
    except OSError as exc:
        raise InputError(f"cannot read calibration folder {path} ({exc.strerror or exc})") from None
    if not entries:
        raise InputError(f"calibration folder {path} is empty; {LAYOUT_HINT}")
    samples: list[Feeds] = []
    budget = Budget(calibration_budget(), "calibration files")
    for entry in entries:
        samples.extend(_load_entry(entry, inputs, shapes, path, budget))
    available = len(samples)
    if limit is not None:
        samples = samples[:limit]
    return CalibrationSet(samples=tuple(samples), source="folder", folder=path, available=available)
