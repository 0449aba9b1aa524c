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

from perftui.domain.errors import InputError
from perftui.domain.records import TensorSpec
from perftui.domain.shapes import fmt_shape

__all__ = ["InputData", "check_shapes", "load_data"]

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


def _load(file: Path) -> dict[str, np.ndarray]:
    """The arrays of one .npy (key "") or .npz file; InputError for anything else."""
    try:
        loaded = np.load(file, allow_pickle=False)
        if isinstance(loaded, np.ndarray):
            return {"": loaded}
        with loaded:
            return {key: loaded[key] for key in loaded.files}
    except ValueError as error:
        if "Object arrays" in str(error):
            raise InputError(
                f"--data {file}: holds a pickled object array; save plain numeric arrays"
            ) from None
        raise InputError(f"--data {file}: not a NumPy .npy/.npz array file") from None
    except (OSError, EOFError, zipfile.BadZipFile):
        raise InputError(f"--data {file}: not a NumPy .npy/.npz array file") from None


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
            found = ", ".join(arrays) or "none"
            raise InputError(f"--data {where}: no array for input {spec.name!r} (found: {found})")
        sample[spec.name] = _convert(arrays[key], spec, where)
    return sample


def _convert(array: np.ndarray, spec: TensorSpec, where: Path) -> np.ndarray:
    want = np.dtype(spec.dtype)
    have = array.dtype
    what = f"--data {where}: input {spec.name!r}"
    lossless = np.can_cast(have, want, "safe") or (have.kind == want.kind == "f")
    if have.kind in "iu" and want.kind in "iu" and array.size:
        info = np.iinfo(want)
        lossless = info.min <= int(array.min()) and int(array.max()) <= info.max
    if not lossless:
        raise InputError(f"{what} has dtype {have}, the model wants {want}")
    if have.kind == "f" and not np.isfinite(array).all():
        raise InputError(f"{what} holds NaN or infinity")
    return np.ascontiguousarray(array, dtype=want)


def _files(path: Path) -> list[Path]:
    entries = sorted(p for p in path.iterdir() if not p.name.startswith("."))
    others = [p for p in entries if p.suffix.lower() not in (".npy", ".npz") or p.is_dir()]
    if others:
        raise InputError(f"--data {others[0]}: not a .npy or .npz file")
    if not entries:
        raise InputError(f"--data {path}: the folder holds no .npy or .npz file")
    return entries


def load_data(path: str, inputs: Sequence[TensorSpec]) -> InputData:
    """The samples at `path` for a model with `inputs`; InputError (one line naming the file
    and the input) for anything that does not fit."""
    where = Path(path).expanduser()
    if where.is_dir():
        files = _files(where)
        npz = [f for f in files if f.suffix.lower() == ".npz"]
        if npz and len(npz) != len(files):
            raise InputError(
                f"--data {where}: mixes .npz samples and .npy inputs; use one or the other"
            )
        if npz:
            samples = [_sample(_load(f), inputs, f) for f in npz]
        else:
            arrays = {f.stem: _load(f)[""] for f in files}
            samples = [_sample(arrays, inputs, where)]
    elif where.is_file():
        samples = [_sample(_load(where), inputs, where)]
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
