"""Run a model on a project's engine and device, as the checks before an INT8 model is saved.

- `check_runs`: compile the model and run one request through perftui's own engine code
  (`Engine.prepare`, `bind`, `infer_once`), the path of every later benchmark, so a model
  that would fail every run is refused before it is stored.
- `open_model`: the same engine and device, returning outputs, for the accuracy check (the
  FP32 reference in f32 explicitly: `Engine.load_outputs`).

Engines (and their libraries) are loaded inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from perftui.domain.errors import InputError
from perftui.domain.records import RunConfig
from perftui.engines.base import LoadedModel
from perftui.optimize.quantize import error_line

Shapes = Mapping[str, tuple[int, ...]]


def where(engine: str, device: str) -> str:
    return f"{engine}/{device}"


def check_runs(
    path: str | Path, engine: str, device: str, shapes: Shapes, feeds: Mapping[str, np.ndarray]
) -> None:
    """Compile `path` with the project's engine as a benchmark does and run one request on
    `feeds`; InputError saying why when it does not."""
    from perftui.engines import get_engine

    try:
        prepared = get_engine(engine).prepare(str(path), device, RunConfig(), shapes)
        prepared.bind(feeds)
        prepared.infer_once()
    except Exception as exc:  # engines raise RuntimeError and their own types
        raise InputError(
            f"the INT8 model does not run on {where(engine, device)}: {error_line(exc)};"
            " nothing was saved"
        ) from None


def open_model(
    path: str | Path, engine: str, device: str, shapes: Shapes, what: str, *, exact: bool = False
) -> LoadedModel:
    """`path` compiled on `engine`/`device` (`Engine.load_outputs`); InputError (one line)
    naming `what` ("FP32" or "INT8") when it does not load."""
    from perftui.engines import get_engine

    path = Path(path)
    try:
        return get_engine(engine).load_outputs(str(path), device, shapes, exact)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(
            f"the {what} model {path.name} does not load on {where(engine, device)}:"
            f" {error_line(exc)}"
        ) from None
