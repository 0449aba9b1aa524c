"""The parent's half of optimize: move the checked INT8 model into the models folder beside
the database and store its project, all or nothing (perftui.optimize.runner calls it; the
child, perftui.optimize.project.make_int8, only reads the store)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.atomic import commit, staging
from perftui.domain.errors import InputError
from perftui.optimize.calibration_folder import safe_name

if TYPE_CHECKING:
    from perftui.optimize.project import OptimizeResult
    from perftui.store import Store


def models_dir(store: Store) -> Path:
    """Where optimized models are kept: a `models` folder next to the database."""
    return Path(store.path).expanduser().absolute().parent / "models"


def _free_path(folder: Path, name: str, suffix: str) -> Path:
    stem = safe_name(name)
    path = folder / f"{stem}{suffix}"
    counter = 2
    while path.exists() or path.with_suffix(".bin").exists():
        path = folder / f"{stem}-{counter}{suffix}"
        counter += 1
    return path


def _quantized_files(model: Path) -> list[Path]:
    """The files a quantizer wrote for a model: one ONNX file (perftui.optimize.quantize saves
    no external data), or an IR's `.xml` and `.bin`. A user's model may have external data
    too: perftui.targets.transfer.model_files finds it."""
    return [model, model.with_suffix(".bin")] if model.suffix.lower() == ".xml" else [model]


@contextlib.contextmanager
def _held_signals() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back (ignored) while the result is published, in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)


def publish(store: Store, made: OptimizeResult) -> OptimizeResult:
    """Move the checked model into the models folder and store its project, all or nothing
    (the parent's half; SIGINT/SIGTERM are held back meanwhile). The result as stored."""
    folder = models_dir(store)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"cannot create {folder} for the INT8 model ({exc.strerror or exc})"
        ) from None
    made_files = _quantized_files(Path(made.project.model))
    final = _free_path(folder, made.project.name, made_files[0].suffix)
    kept = _quantized_files(final)
    staged: list[str] = []
    with _held_signals():
        try:
            for made_file, path in zip(made_files, kept, strict=True):
                with staging(path) as (tmp, out), made_file.open("rb") as source:
                    staged.append(tmp)
                    shutil.copyfileobj(source, out)
            for tmp, path in reversed(list(zip(staged, kept, strict=True))):  # the .xml last
                commit(tmp, path)
            stored = store.add_project(dataclasses.replace(made.project, model=str(final)))
        except BaseException as exc:
            for leftover in [*staged, *map(str, kept)]:
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
            if isinstance(exc, OSError):
                raise InputError(
                    f"cannot write the INT8 model to {final} ({exc.strerror or exc})"
                ) from None
            raise
    return dataclasses.replace(made, project=stored)
