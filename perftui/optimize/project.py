"""Optimize one project: quantize its ONNX model, check accuracy, register the INT8 project.

Two steps, so that only the parent process writes the store (DESIGN rule 2): `make_int8`
(in the child, perftui.optimize.worker) quantizes and checks the model in a work folder and
only reads the store; `publish` (in the parent, perftui.optimize.runner) moves the model to
``<database folder>/models/<name>.onnx`` and stores the project, all or nothing: if storing
fails the model file is removed again. A cancel (SIGINT/SIGTERM raised as KeyboardInterrupt)
before publishing leaves nothing behind; during its few milliseconds it is held back, so the
result is then kept whole. `optimize_project` does both in one process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.records import Project
from perftui.inspection import inspect_model, model_format, validate_model_file
from perftui.optimize.accuracy import AccuracyReport, measure_accuracy
from perftui.optimize.calibration import (
    DEFAULT_RANDOM_SAMPLES,
    CalibrationSet,
    calibration_shapes,
    held_back_samples,
    load_calibration_folder,
    random_calibration,
    safe_name,
)
from perftui.optimize.quantize import METHODS, QUANTIZED_OPS, Method, Progress, quantize_model
from perftui.store import Store, now_iso

RANDOM_WARNING = (
    "no --calibration folder: {what} seeded random data, so the accuracy figures are only a"
    " consistency check of the INT8 model against the FP32 one, not its accuracy on real data"
)


@dataclass(frozen=True)
class OptimizeResult:
    """What `optimize_project` made."""

    project: Project
    source: Project
    method: Method
    calibration: str  # "folder" | "random"
    samples: int
    warning: str | None
    accuracy: AccuracyReport
    folder: Path | None = None
    """The calibration folder, if one was given."""
    available: int = 0
    """Samples the folder holds (more than `samples` when --samples took the first N)."""

    def handback(self) -> dict[str, Any]:
        """What the child hands its parent: all of it, the project to store included."""
        return {
            "project": self.project.to_dict(),
            "source": self.source.to_dict(),
            "method": self.method,
            "calibration": self.calibration,
            "samples": self.samples,
            "warning": self.warning,
            "accuracy": self.accuracy.to_dict(),
            "folder": None if self.folder is None else str(self.folder),
            "available": self.available,
        }

    @classmethod
    def from_handback(cls, data: Mapping[str, Any]) -> OptimizeResult:
        """The result a child handed back (KeyError, TypeError or ValueError when malformed)."""
        method = data["method"]
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}")
        return cls(
            project=Project.from_dict(data["project"]),
            source=Project.from_dict(data["source"]),
            method=method,
            calibration=str(data["calibration"]),
            samples=int(data["samples"]),
            warning=data["warning"],
            accuracy=AccuracyReport.from_dict(data["accuracy"]),
            folder=None if data["folder"] is None else Path(data["folder"]),
            available=int(data["available"]),
        )

    def to_dict(self) -> dict[str, Any]:
        """The `perftui optimize --json` document."""
        return {
            "project": self.project.name,
            "source": self.source.name,
            "model": self.project.model,
            "method": self.method,
            "calibration": self.calibration,
            "samples": self.samples,
            "warning": self.warning,
            "accuracy": self.accuracy.to_dict(),
        }


def default_name(source: str, method: Method) -> str:
    """'fp32-int8' for static, 'fp32-int8-dynamic' for dynamic quantization."""
    return f"{source}-int8" if method == "static" else f"{source}-int8-dynamic"


def models_dir(store: Store) -> Path:
    """Where optimized models are kept: a `models` folder next to the database."""
    return Path(store.path).expanduser().absolute().parent / "models"


def _check_source(store: Store, name: str) -> Project:
    source = store.get_project(name)
    if source is None:
        names = ", ".join(p.name for p in store.projects()) or "none yet"
        raise InputError(f"no project named {name!r}; projects: {names}")
    model = Path(source.model)
    if model_format(model) != "onnx":
        raise InputError(
            f"project {name!r} uses an OpenVINO IR model ({model.name}); optimize quantizes"
            " ONNX models with ONNX Runtime and OpenVINO cannot write ONNX back, so benchmark"
            " the network's .onnx file as a project (perftui bench MODEL.onnx --project NAME)"
            " and optimize that"
        )
    try:
        validate_model_file(model)
    except InputError as exc:
        raise InputError(f"project {name!r}: {exc}") from None
    return source


def _target_name(store: Store, source: Project, name: str | None, method: Method) -> str:
    target = default_name(source.name, method) if name is None else name.strip()
    if not target:
        raise InputError("--name is empty; give the new project a name")
    if store.get_project(target) is not None:
        flag = "another --name" if name is not None else "a name with --name NAME"
        raise InputError(f"project {target!r} already exists; choose {flag}")
    return target


def _free_path(folder: Path, name: str) -> Path:
    stem = safe_name(name)
    path = folder / f"{stem}.onnx"
    counter = 2
    while path.exists():
        path = folder / f"{stem}-{counter}.onnx"
        counter += 1
    return path


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
    final = _free_path(folder, made.project.name)
    part = folder / f".{final.name}.{os.getpid()}.part"
    with _held_signals():
        try:
            shutil.copyfile(made.project.model, part)
            os.replace(part, final)
            stored = store.add_project(dataclasses.replace(made.project, model=str(final)))
        except BaseException as exc:
            for leftover in (part, final):
                with contextlib.suppress(OSError):
                    leftover.unlink()
            if isinstance(exc, OSError):
                raise InputError(
                    f"cannot write the INT8 model to {final} ({exc.strerror or exc})"
                ) from None
            raise
    return dataclasses.replace(made, project=stored)


def optimize_project(store: Store, source_name: str, **options: Any) -> OptimizeResult:
    """Make the INT8 version of project `source_name` and register it, in this process (the
    options are `make_int8`'s)."""
    with tempfile.TemporaryDirectory(prefix="perftui-optimize-") as workdir:
        return publish(store, make_int8(store, source_name, Path(workdir), **options))


def make_int8(
    store: Store,
    source_name: str,
    workdir: Path,
    *,
    method: Method = "static",
    calibration: str | Path | None = None,
    samples: int | None = None,
    name: str | None = None,
    shapes: Mapping[str, Sequence[int]] | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> OptimizeResult:
    """Make the INT8 version of project `source_name` in `workdir`, ready to `publish`.

    `samples` caps the calibration folder (default: all of it) or sets the number of random
    samples (default `DEFAULT_RANDOM_SAMPLES`). `warn` is told the random-data warning before
    the work starts. InputError (one line) on bad input or when quantization/accuracy fails.
    """
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose from: {', '.join(METHODS)}")
    if samples is not None and samples < 1:
        raise InputError(f"--samples must be at least 1 (got {samples})")
    source = _check_source(store, source_name)
    target = _target_name(store, source, name, method)
    info = inspect_model(source.model)
    quantized = sorted(set(info.op_counts) & QUANTIZED_OPS)
    if quantized:
        raise InputError(
            f"project {source.name!r} is already quantized ({Path(source.model).name} has"
            f" {quantized[0]} nodes); optimize its FP32 source instead"
        )
    static_shapes = calibration_shapes(info.inputs, shapes or {})

    if calibration is not None:
        data = load_calibration_folder(calibration, info.inputs, static_shapes, samples)
        accuracy_samples = data.samples
        accuracy_inputs = "calibration"
        warning = None
    else:
        count = samples or DEFAULT_RANDOM_SAMPLES
        if method == "static":
            data = random_calibration(info.inputs, static_shapes, count, seed)
        else:  # no calibration: only the held-back set is needed
            data = CalibrationSet(samples=(), source="random", available=count)
        accuracy_samples = held_back_samples(info.inputs, static_shapes, count, seed)
        accuracy_inputs = "held-out"
        what = "calibrated on" if method == "static" else "checked on"
        warning = RANDOM_WARNING.format(what=what)
    if warning and warn is not None:
        warn(warning)
    used = len(accuracy_samples)  # = calibration samples for static; accuracy inputs for dynamic

    model = workdir / "int8.onnx"
    quantize_model(source.model, model, method, data.samples, progress)
    report = measure_accuracy(source.model, model, accuracy_samples, accuracy_inputs, progress)
    notes: dict[str, Any] = {
        "optimization": {
            "method": method,
            "calibration": data.source,
            "calibration_dir": str(data.folder) if data.folder else None,
            "samples": used,
            "seed": seed if data.source == "random" else None,
            "source_model": source.model,
            "accuracy": report.to_dict(),
            "created_at": now_iso(),
        }
    }
    if progress is not None:
        progress("saving", 0, 0)
    project = Project(
        name=target,
        model=str(model),
        engine=source.engine,
        device=source.device,
        source_project=source.name,
        notes=notes,
    )
    return OptimizeResult(
        project=project,
        source=source,
        method=method,
        calibration=data.source,
        samples=used,
        warning=warning,
        accuracy=report,
        folder=data.folder,
        available=data.available,
    )
