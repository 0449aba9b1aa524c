"""A run as a write stores it: `prepare` makes its document, its figures and its payload once
(no file touched; an import does it in worker processes), and `payload_bytes`/`read_payload`
are its `.npz`: the latency samples (float32, read with ``allow_pickle=False``) and the layer
profile (its rows as UTF-8 JSON bytes, read without numpy: showing a project loads none)."""

from __future__ import annotations

import ast
import io
import json
import uuid
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import InputError
from perftui.domain.records import LayerProfile, RunResult
from perftui.store.codec import LAYER_BYTES, MAX_LAYERS, MAX_SAMPLES, SamplesBlob, plain
from perftui.store.figure_docs import figures_doc
from perftui.store.files import read_nofollow
from perftui.store.layout import RUN_ID, now_iso, run_doc

if TYPE_CHECKING:
    import numpy as np

    Samples = np.ndarray | SamplesBlob | None
    """A run's latency samples: an array, or an import's blob."""

__all__ = ["Prepared", "payload_bytes", "prepare", "read_payload", "unknown_project", "with_id"]


@dataclass(frozen=True)
class Prepared:
    """A run as a write stores it."""

    run: RunResult
    """The run, with its id and start time, and its layers as records when it has any."""
    doc: dict[str, Any]
    environment: dict[str, Any] | None
    """Its environment's document (kept once per environment), or None."""
    samples: np.ndarray | None
    layers: tuple[int, bytes] | None
    """Its layer profile: (how many layers, their rows as UTF-8 JSON)."""
    figures: dict[str, Any]


def with_id(run: RunResult) -> RunResult:
    """The run as it will be stored: its project checked, an id and start time assigned."""
    if not run.project:
        raise InputError("a run must name its project before it is stored")
    for what, value in (("run id", run.id), ("benchmark id", run.benchmark_id)):
        if not isinstance(value, str) or (value and RUN_ID.fullmatch(value) is None):
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise InputError(f"a {what} is 1-64 letters, digits, '_' or '-', not {shown}")
    if run.id and run.started_at:
        return run
    return replace(run, id=run.id or uuid.uuid4().hex, started_at=run.started_at or now_iso())


def prepare(
    run: RunResult, samples: Samples, layers: list[dict[str, Any]] | None = None
) -> Prepared:
    """The run as it will be stored (`with_id`), with its figures. An import gives its
    profile as the checked rows `layers` (stored as they come), the run none."""
    import numpy as np

    run = with_id(run)
    array = samples.array() if isinstance(samples, SamplesBlob) else samples
    if array is not None:
        array = np.ascontiguousarray(np.asarray(array, dtype=np.float32).ravel())
    if run.layers is not None:
        layers = [layer.to_dict() for layer in run.layers]
    elif layers is not None:
        run = replace(run, layers=tuple(map(LayerProfile.from_dict, layers)))
    doc, environment = run_doc(run)
    return Prepared(run, doc, environment, array, _layers(layers), figures_doc(run, array))


def _layers(rows: list[dict[str, Any]] | None) -> tuple[int, bytes] | None:
    """The profile as its `.npz` keeps it; ValueError if a layer takes more than a stored
    one may (`LAYER_BYTES`)."""
    if rows is None:
        return None
    try:  # plain JSON already (an import): the same text without a copy
        text = json.dumps(rows, separators=(",", ":"), allow_nan=True)
    except TypeError:
        text = json.dumps(plain(rows), separators=(",", ":"))
    raw = text.encode("utf-8")
    if len(raw) > max(len(rows), 1) * LAYER_BYTES:
        raise ValueError(
            f"a profile of {len(rows)} layers takes {len(raw)} bytes, more than"
            f" {LAYER_BYTES} a layer"
        )
    return len(rows), raw


def unknown_project(name: str) -> InputError:
    return InputError(f"no project named '{name}'; create it before storing runs")


def payload_bytes(item: Prepared) -> bytes | None:
    """The run's `.npz`, or None when it has neither samples nor layers."""
    if item.samples is None and item.layers is None:
        return None
    import numpy as np

    arrays: dict[str, np.ndarray] = {}
    if item.samples is not None:
        arrays["samples"] = item.samples
    if item.layers is not None:
        arrays["layers"] = np.frombuffer(item.layers[1], dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    return buffer.getvalue()


def read_payload(path: Path, kind: str) -> Any:
    """The run's samples (float32 array) or layer rows from its `.npz`; None if it holds
    none; OSError, ValueError or zipfile.BadZipFile if it cannot be read."""
    with zipfile.ZipFile(io.BytesIO(read_nofollow(path))) as npz:  # the file read once
        if f"{kind}.npy" not in npz.namelist():
            return None
        if kind == "layers":  # read without numpy: showing a project needs it for nothing else
            raw = _uint8_npy(npz.open("layers.npy").read(MAX_LAYERS * LAYER_BYTES + 1024))
            rows = json.loads(raw)
            if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
                raise ValueError("layers are not a list of rows")
            return rows
        import numpy as np

        with npz.open("samples.npy") as member:
            array = np.lib.format.read_array(member, allow_pickle=False)
    if array.dtype != np.float32 or array.ndim != 1 or array.size > MAX_SAMPLES:
        raise ValueError("samples are not a list of float32")
    return array


def _uint8_npy(data: bytes) -> bytes:
    """The bytes of a one-dimensional uint8 array in numpy's .npy format (its header read as
    numpy.lib.format writes it: a literal dict); ValueError if it is not one."""
    if data[:6] != b"\x93NUMPY" or data[6] not in (1, 2, 3):
        raise ValueError("not a .npy array")
    size = 2 if data[6] == 1 else 4
    start = 8 + size + int.from_bytes(data[8 : 8 + size], "little")
    header = ast.literal_eval(data[8 + size : start].decode("latin1"))
    if not isinstance(header, dict) or header.get("descr") not in ("|u1", "<u1", ">u1"):
        raise ValueError("layers are not JSON bytes")
    shape = header.get("shape")
    if header.get("fortran_order") or not isinstance(shape, tuple) or len(shape) != 1:
        raise ValueError("layers are not JSON bytes")
    if len(data) - start != shape[0]:
        raise ValueError("layers are cut short")
    return data[start:]
