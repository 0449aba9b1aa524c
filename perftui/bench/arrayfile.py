"""Reading .npy and .npz files with every size checked before any data is read.

A `.npy` header declares its array's shape and dtype, and a zip archive declares each
member's uncompressed size; both are read (a few hundred bytes) and handed to the caller's
check before the data is, so a small `.npz` that declares gigabytes is refused in
milliseconds (issue 26; benchmarks/README.md, bad_input.py).
Pickled (object) arrays are refused without being read.

The callers (`--data`, `optimize --calibration`) word their own errors: this module raises
`ArrayFileError` with the reason, and lets the check's `InputError` through.
"""

from __future__ import annotations

import math
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

import numpy as np
from numpy.lib import format as npy

__all__ = ["ArrayFileError", "Budget", "HeaderCheck", "read_arrays", "read_npy"]

HeaderCheck = Callable[[str, tuple[int, ...], np.dtype], None]
"""Called with (key, shape, dtype) of each array before its data is read; it raises (an
InputError) to refuse the array. The key of a `.npy` file is ""."""

MAX_MEMBERS = 4096
"""Arrays one `.npz` may hold (a model has a handful of inputs)."""


class ArrayFileError(Exception):
    """The file is not a readable, plain numeric .npy/.npz file (the message says why)."""


class Budget:
    """Bytes the arrays of one input option may take together; `take` refuses past it."""

    def __init__(self, limit: int, what: str) -> None:
        self.limit = limit
        self.what = what
        self.used = 0

    def take(self, nbytes: int, where: str) -> None:
        """Count `nbytes` more; InputError once the total passes the limit."""
        from perftui.domain.errors import InputError

        self.used += nbytes
        if self.used > self.limit:
            raise InputError(
                f"{where}: the {self.what} declare {self.used / 2**20:,.0f} MiB of arrays, more"
                f" than the {self.limit / 2**20:,.0f} MiB this machine can spare for them"
            )


def declared_bytes(shape: tuple[int, ...], dtype: np.dtype) -> int:
    """Bytes an array of `shape` and `dtype` holds."""
    return math.prod(shape) * dtype.itemsize


def _header(fp: IO[bytes]) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from the header at the stream's position; ArrayFileError if none."""
    try:
        version = npy.read_magic(fp)
        if version == (1, 0):
            shape, _fortran, dtype = npy.read_array_header_1_0(fp)
        elif version in ((2, 0), (3, 0)):
            shape, _fortran, dtype = npy.read_array_header_2_0(fp)
        else:
            raise ArrayFileError(f"unknown .npy format version {version}")
    except (ValueError, EOFError, OSError) as error:
        raise ArrayFileError(_first_line(error)) from None
    if dtype.hasobject:
        raise ArrayFileError("holds a pickled object array; save plain numeric arrays")
    if any(not isinstance(d, int) or d < 0 for d in shape):
        raise ArrayFileError(f"declares an impossible shape {list(shape)}")
    return tuple(shape), dtype


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:160] if lines else type(error).__name__


def _read_data(fp: IO[bytes]) -> np.ndarray:
    """The array at the stream's start (its header already checked)."""
    try:
        return npy.read_array(fp, allow_pickle=False)
    except (ValueError, EOFError, OSError) as error:
        raise ArrayFileError(_first_line(error)) from None


def read_npy(path: Path, check: HeaderCheck, key: str = "") -> np.ndarray:
    """The array of a `.npy` file, its header passed to `check` first."""
    try:
        with path.open("rb") as fp:
            shape, dtype = _header(fp)
            size = path.stat().st_size
            if declared_bytes(shape, dtype) > size:
                raise ArrayFileError(
                    f"is cut short: its header declares {declared_bytes(shape, dtype):,} bytes"
                    f" of data and the file has {size:,}"
                )
            check(key, shape, dtype)
            fp.seek(0)
            return _read_data(fp)
    except OSError as error:
        raise ArrayFileError(error.strerror or _first_line(error)) from None


def _member_key(info: zipfile.ZipInfo) -> str:
    return info.filename[:-4] if info.filename.endswith(".npy") else info.filename


def read_npz(
    path: Path, check: HeaderCheck, wanted: Callable[[str], bool] = lambda _key: True
) -> dict[str, np.ndarray]:
    """The arrays of a `.npz` archive whose key `wanted` accepts, each member's declared size
    and header passed to `check` before its data is decompressed."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS:
                raise ArrayFileError(f"holds {len(members):,} arrays (at most {MAX_MEMBERS})")
            arrays: dict[str, np.ndarray] = {}
            for info in members:
                key = _member_key(info)
                if not wanted(key):
                    continue
                with archive.open(info) as fp:
                    shape, dtype = _header(fp)
                    if declared_bytes(shape, dtype) > info.file_size:
                        raise ArrayFileError(
                            f"array {key!r} is cut short: its header declares more data than"
                            " the archive holds"
                        )
                    check(key, shape, dtype)
                with archive.open(info) as fp:
                    arrays[key] = _read_data(fp)
            return arrays
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as error:
        raise ArrayFileError(f"not a readable .npz archive ({_first_line(error)})") from None
    except OSError as error:
        raise ArrayFileError(error.strerror or _first_line(error)) from None


def read_arrays(
    path: Path, check: HeaderCheck, wanted: Callable[[str], bool] = lambda _key: True
) -> dict[str, np.ndarray]:
    """The arrays of a `.npy` (key "") or `.npz` file, by its first bytes."""
    try:
        with path.open("rb") as fp:
            magic = fp.read(6)
    except OSError as error:
        raise ArrayFileError(error.strerror or _first_line(error)) from None
    if magic[:2] == b"PK":
        return read_npz(path, check, wanted)
    if magic == npy.MAGIC_PREFIX:
        return {"": read_npy(path, check)}
    raise ArrayFileError("not a NumPy .npy/.npz array file")
