"""Hostile input files for the bad-input tests and benchmarks/bad_input.py: archives that
declare far more than they hold, headers that declare arrays no machine has."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
from numpy.lib import format as npy

CHUNK = 2**20


def _header(shape: tuple[int, ...], dtype: str) -> bytes:
    """A .npy header (magic, version 1.0) for an array of `shape` and `dtype`."""
    import io

    out = io.BytesIO()
    npy.write_array_header_1_0(
        out, {"descr": npy.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": shape}
    )
    return out.getvalue()


def zip_bomb(path: Path, key: str, shape: tuple[int, ...], dtype: str = "float32") -> Path:
    """An .npz whose one member declares `shape` and holds that many zero bytes, deflated
    (1 GiB of zeros is about 1 MB on disk)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    zeros = bytes(CHUNK)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive,
        archive.open(f"{key}.npy", "w", force_zip64=True) as member,
    ):
        member.write(_header(shape, dtype))
        for start in range(0, size, CHUNK):
            member.write(zeros[: min(CHUNK, size - start)])
    return path


def huge_npy(path: Path, shape: tuple[int, ...], dtype: str = "float32") -> Path:
    """A .npy file whose header declares `shape` and which holds no data at all."""
    path.write_bytes(_header(shape, dtype))
    return path


def huge_npz(path: Path, key: str, shape: tuple[int, ...], dtype: str = "float32") -> Path:
    """An .npz whose one member is a header declaring `shape`, with no data."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{key}.npy", _header(shape, dtype))
    return path
