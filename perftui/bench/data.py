"""A person's own input data (`perftui bench --data PATH`, like benchmark_app's `-i`).

PATH is one of:

* ``NAME.npz``: one sample, an array per input keyed by input name;
* ``NAME.npy``: one sample of a single-input model;
* a folder of ``.npz`` files (one sample each, in name order) or of ``INPUT.npy`` files (one
  sample, an array per input); hidden entries are ignored.

An input name that cannot be a file or key name (``/``, ``:``) may be written with those
characters replaced by ``_``. Arrays are loaded without pickle. Each must hold the input's
dtype (or one that converts to it without loss), no NaN or infinity, and the run's static
shape (batch and ``--shape`` applied). Samples are cycled over the requests in flight: request
i uses sample i mod n (sync runs have one request: the first sample).
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perftui.bench.arrayfile import (
    ArrayFileError,
    Budget,
    HeaderCheck,
    declared_bytes,
    read_arrays,
    read_npy,
)
from perftui.domain.errors import InputError
from perftui.domain.model.input_rules import InputRule
from perftui.domain.model.shapes import fmt_shape
from perftui.domain.records import TensorSpec

__all__ = ["InputData", "check_rules", "check_shapes", "load_data"]

Sample = dict[str, np.ndarray]


@dataclass(frozen=True)
class InputData:
    """The samples of --data, converted to the inputs' dtypes, and their digest."""

    path: str
    samples: tuple[Sample, ...]
    sha256: str

    def record(self) -> dict[str, object]:
        """What the run keeps of it."""
        return {"path": self.path, "sha256": self.sha256, "samples": len(self.samples)}


def _safe_key(name: str) -> str:
    return re.sub(r"[/\\:]", "_", name)


Runs = Sequence[tuple[str, Mapping[str, tuple[int, ...]]]]
"""(label, static shapes) of each run the data must fit; the label names the run in errors."""

DATA_BUDGET = 2 * 2**30
"""Bytes --data may take at most when the caller gives no budget."""


def _checker(where: Path, inputs: Sequence[TensorSpec], runs: Runs, budget: Budget) -> HeaderCheck:
    """Refuses an array from its header: an input's shape that is not every run's, a dtype
    that is not numeric, more bytes than the budget."""
    specs = {key: spec for spec in inputs for key in (spec.name, _safe_key(spec.name))}

    def check(key: str, shape: tuple[int, ...], dtype: np.dtype) -> None:
        spec = specs.get(key) or (inputs[0] if key == "" and len(inputs) == 1 else None)
        if dtype.kind not in "biuf":
            name = f"input {spec.name!r}" if spec else f"array {key!r}"
            raise InputError(f"--data {where}: {name} holds {dtype} data, not numbers")
        if spec is not None:
            for label, shapes in runs:
                if shape != tuple(shapes[spec.name]):
                    raise InputError(
                        f"--data {where}: input {spec.name!r} has shape {fmt_shape(shape)},"
                        f" {label} needs {fmt_shape(shapes[spec.name])}"
                    )
        budget.take(declared_bytes(shape, dtype), f"--data {where}")

    return check


def _load(file: Path, inputs: Sequence[TensorSpec], check: HeaderCheck) -> dict[str, np.ndarray]:
    """The arrays of one .npy (key "") or .npz file that are the model's inputs, each header
    checked before its data is read; InputError for anything else."""
    keys = {key for spec in inputs for key in (spec.name, _safe_key(spec.name))}
    try:
        return read_arrays(file, check, lambda key: key in keys)
    except ArrayFileError as error:
        if "pickled" in str(error):
            raise InputError(f"--data {file}: {error}") from None
        raise InputError(f"--data {file}: not a NumPy .npy/.npz array file ({error})") from None


def _sample(arrays: Mapping[str, np.ndarray], inputs: Sequence[TensorSpec], where: Path) -> Sample:
    """One array per input, by name (or its file-safe name), converted to the input's dtype."""
    if list(arrays) == [""]:
        if len(inputs) != 1:
            raise InputError(
                f"--data {where}: a .npy holds one array, the model has {len(inputs)} inputs; "
                "use a .npz with one array per input"
            )
        arrays = {inputs[0].name: arrays[""]}
    sample = {}
    for spec in inputs:
        key = spec.name if spec.name in arrays else _safe_key(spec.name)
        if key not in arrays:
            found = ", ".join(_keys(where)) or "none"
            raise InputError(f"--data {where}: no array for input {spec.name!r} (found: {found})")
        sample[spec.name] = _convert(arrays[key], spec, where)
    return sample


def _convert(array: np.ndarray, spec: TensorSpec, where: Path) -> np.ndarray:
    want = np.dtype(spec.dtype)
    have = array.dtype
    what = f"--data {where}: input {spec.name!r}"
    lossless = np.can_cast(have, want, "safe")
    if have.kind in "iu" and want.kind in "iu" and array.size:
        info = np.iinfo(want)
        lossless = info.min <= int(array.min()) and int(array.max()) <= info.max
    if not lossless and not have.kind == want.kind == "f":
        raise InputError(f"{what} has dtype {have}, the model wants {want}")
    if have.kind == "f" and not np.isfinite(array).all():
        raise InputError(f"{what} holds NaN or infinity")
    converted = np.ascontiguousarray(array, dtype=want)
    if not lossless and not np.array_equal(converted.astype(have), array):
        raise InputError(
            f"{what} has {have} values that {want} cannot hold exactly; save it as {want},"
            " the model's dtype"
        )
    return converted


def _npy(file: Path, check: HeaderCheck) -> np.ndarray:
    """One INPUT.npy of a folder, its header checked (key: the file's stem) first."""
    try:
        return read_npy(file, check, file.stem)
    except ArrayFileError as error:
        raise InputError(f"--data {file}: not a readable .npy array file ({error})") from None


def _files(path: Path) -> list[Path]:
    entries = sorted(p for p in path.iterdir() if not p.name.startswith("."))
    others = [p for p in entries if p.suffix.lower() not in (".npy", ".npz") or p.is_dir()]
    if others:
        raise InputError(f"--data {others[0]}: not a .npy or .npz file")
    if not entries:
        raise InputError(f"--data {path}: the folder holds no .npy or .npz file")
    return entries


def _keys(where: Path) -> list[str]:
    """The array names a file or folder offers (for an error message)."""
    if where.is_dir():
        return [f.stem for f in sorted(where.iterdir()) if not f.name.startswith(".")]
    try:
        with zipfile.ZipFile(where) as archive:
            return [name.removesuffix(".npy") for name in archive.namelist()[:20]]
    except (OSError, zipfile.BadZipFile):
        return []


def load_data(
    path: str,
    inputs: Sequence[TensorSpec],
    runs: Runs = (),
    budget: int = DATA_BUDGET,
) -> InputData:
    """The samples at `path` for a model with `inputs`; InputError (one line naming the file
    and the input) for anything that does not fit. Each array's header is checked before its
    data is read: a shape that is not every one of `runs`' (check_shapes' error, earlier), a
    dtype that is not numeric, or more than `budget` bytes in all is refused unread."""
    where = Path(path).expanduser()
    spend = Budget(budget, "files of --data")
    if where.is_dir():
        files = _files(where)
        npz = [f for f in files if f.suffix.lower() == ".npz"]
        if npz and len(npz) != len(files):
            raise InputError(
                f"--data {where}: mixes .npz samples and .npy inputs; use one or the other"
            )
        if npz:
            samples = [
                _sample(_load(f, inputs, _checker(f, inputs, runs, spend)), inputs, f) for f in npz
            ]
        else:
            keys = {key for spec in inputs for key in (spec.name, _safe_key(spec.name))}
            check = _checker(where, inputs, runs, spend)
            arrays = {f.stem: _npy(f, check) for f in files if f.stem in keys}
            samples = [_sample(arrays, inputs, where)]
    elif where.is_file():
        samples = [
            _sample(_load(where, inputs, _checker(where, inputs, runs, spend)), inputs, where)
        ]
    else:
        raise InputError(f"--data {where}: no such file or folder")
    digest = hashlib.sha256()
    for sample in samples:
        for name in sorted(sample):
            array = sample[name]
            digest.update(f"{name}|{array.dtype}|{array.shape}|".encode())
            digest.update(array.tobytes())
    return InputData(str(where), tuple(samples), digest.hexdigest())


def check_shapes(data: InputData, shapes: Mapping[str, tuple[int, ...]], run: str) -> None:
    """InputError unless every sample has the run's static shapes (`run` names the run)."""
    for i, sample in enumerate(data.samples):
        for name, array in sample.items():
            if tuple(array.shape) != tuple(shapes[name]):
                which = f" sample {i + 1}" if len(data.samples) > 1 else ""
                raise InputError(
                    f"--data {data.path}{which}: input {name!r} has shape "
                    f"{fmt_shape(array.shape)}, {run} needs {fmt_shape(shapes[name])}"
                )


def check_rules(data: InputData, rules: Mapping[str, InputRule]) -> None:
    """InputError when an integer input's data indexes past the table its rule names (token
    ids of 40000 for a vocabulary of 30522 ran "ok" on OpenVINO, reading past the table)."""
    for i, sample in enumerate(data.samples):
        for name, array in sample.items():
            rule = rules.get(name)
            if rule is None or rule.high is None or array.dtype.kind not in "iu" or not array.size:
                continue
            top = int(array.max())
            if top >= rule.high:
                which = f" sample {i + 1}" if len(data.samples) > 1 else ""
                raise InputError(
                    f"--data {data.path}{which}: input {name!r} holds {top}, outside the"
                    f" {rule.high} rows it indexes ({rule.why}); its values must be below"
                    f" {rule.high}"
                )
