"""Optimize one project: quantize its model, check it on the project's engine, register the
INT8 project.

OpenVINO projects (IR or ONNX) are quantized with NNCF into IR; ONNX Runtime projects with
ONNX Runtime's tools (perftui.optimize.quantize). Before anything is stored the INT8 model is
compiled and run once on the project's engine and device, as a benchmark would, and the
accuracy check runs there too: a model that fails either is not saved. Without `--shape`,
the shapes of the project's last benchmark are used.

Two steps, so that only the parent process writes the store (ARCHITECTURE.md rule 2): `make_int8`
(in the child, perftui.optimize.worker) quantizes and checks the model in a work folder and
only reads the store; `publish` (perftui.optimize.publish, in the parent) moves the model to
``<database folder>/models/<name>.onnx`` (``.xml`` and ``.bin`` for IR) and stores the
project, all or nothing: if storing fails the model files are removed again. A cancel
(SIGINT/SIGTERM raised as KeyboardInterrupt) before publishing leaves nothing behind; during
its few milliseconds it is held back, so the result is then kept whole. `optimize_project`
does both in one process.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perftui.bench.inputs import InputSource
from perftui.domain.errors import InputError
from perftui.domain.limits import DEFAULT_RANDOM_SAMPLES, check_samples, check_seed
from perftui.domain.model.shapes import ShapeBindings, as_bindings, shapes_text
from perftui.domain.names import int8_name
from perftui.domain.records import METHODS, Method, Project, TensorSpec
from perftui.engines import CAPABILITIES, capabilities
from perftui.engines.capabilities import ONNXRUNTIME
from perftui.inspection import inspect_model, model_format, validate_model_file
from perftui.inspection.validate import check_onnx_graph
from perftui.optimize.accuracy import AccuracyReport, measure_accuracy
from perftui.optimize.calibration import (
    CalibrationSet,
    calibration_shapes,
    held_back_samples,
    random_calibration,
)
from perftui.optimize.calibration_folder import load_calibration_folder
from perftui.optimize.on_engine import check_runs
from perftui.optimize.publish import publish
from perftui.optimize.quantize import QUANTIZED_OPS, Progress, quantize_model
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
    tool: str = ONNXRUNTIME.quantizer
    """The quantizer (the engine's `Capabilities.quantizer`); documents from before it was
    recorded were made by ONNX Runtime's."""
    changes: tuple[str, ...] = ()
    """What the recipe changed in the model or chose, one line each."""
    shapes: str = ""
    """`--shape` for benchmarking the INT8 project ("" when the model needs none)."""

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
            "tool": self.tool,
            "changes": list(self.changes),
            "shapes": self.shapes,
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
            tool=str(data.get("tool", ONNXRUNTIME.quantizer)),
            changes=tuple(str(line) for line in data.get("changes") or ()),
            shapes=str(data.get("shapes") or ""),
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
            "tool": self.tool,
            "changes": list(self.changes),
            "shapes": self.shapes,
            "accuracy": self.accuracy.to_dict(),
        }


def _check_source(store: Store, name: str) -> Project:
    source = store.get_project(name)
    if source is None:
        names = ", ".join(p.name for p in store.projects()) or "none yet"
        raise InputError(f"no project named {name!r}; projects: {names}")
    model = Path(source.model)
    try:
        validate_model_file(model)
        if model_format(model) == "onnx":  # its tensors' data, as a benchmark checks them
            check_onnx_graph(model, capabilities(source.engine), domains=False)
    except InputError as exc:
        raise InputError(f"project {name!r}: {exc}") from None
    if not capabilities(source.engine).reads(fmt := model_format(model)):
        readers = " or ".join(c.title for c in CAPABILITIES.values() if c.reads(fmt))
        raise InputError(
            f"project {name!r} runs on {source.engine}, which cannot read the {fmt} model"
            f" {model.name}; optimize an {readers} project of it instead"
        )
    return source


def _project_shapes(store: Store, source: Project) -> ShapeBindings:
    """The shapes of the project's last benchmark (none if it has not been benchmarked)."""
    last = store.last_benchmark(source.name)
    return last.request.shapes if last is not None else ShapeBindings()


def _shapes_chosen(
    static: Mapping[str, tuple[int, ...]], bindings: ShapeBindings, from_benchmark: bool
) -> str:
    """The line that says which shapes the model was calibrated and checked at, and, where
    the project's benchmark measured several values of a dimension, that the first was
    taken and `--shape` chooses another."""
    at = shapes_text(static)
    line = f"calibrated and checked at {at}"
    several = {name: values for name, values in bindings.dims.items() if len(values) > 1}
    if several:
        first = ", ".join(f"{name}={values[0]}" for name, values in several.items())
        where = "the project's last benchmark" if from_benchmark else "--shape"
        line += (
            f" ({first}: the first of {bindings.text()} in {where};"
            " --shape DIM=N calibrates at another)"
        )
    return line


def _bench_shapes(
    engine: str, model: Path, shapes: ShapeBindings, static: Mapping[str, tuple[int, ...]]
) -> str:
    """`--shape` that benchmarks the INT8 `model` as the source was: the same bindings where
    they fit it, else each input's whole shape (an IR does not keep dimension names)."""
    from perftui.bench.inputs import resolve_shapes
    from perftui.engines import get_engine

    inputs: list[TensorSpec] = get_engine(engine).model_inputs(str(model))
    if not any(spec.dynamic_dims for spec in inputs):
        return ""
    try:
        resolve_shapes(inputs, 1, shapes)
    except InputError:
        return ShapeBindings(inputs={k: tuple(v) for k, v in static.items()}).text()
    return shapes.text()


def _target_name(store: Store, source: Project, name: str | None, method: Method) -> str:
    target = int8_name(source.name, method) if name is None else name.strip()
    if not target:
        raise InputError("--name is empty; give the new project a name")
    if store.get_project(target) is not None:
        flag = "another --name" if name is not None else "a name with --name NAME"
        raise InputError(f"project {target!r} already exists; choose {flag}")
    return target


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
    shapes: ShapeBindings | Mapping[str, Sequence[int]] | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> OptimizeResult:
    """Make the INT8 version of project `source_name` in `workdir`, ready to `publish`.

    `samples` caps the calibration folder (default: all of it) or sets the number of random
    samples (default `DEFAULT_RANDOM_SAMPLES`). `shapes` bind dynamic dimensions (default:
    those of the project's last benchmark). `warn` is told the random-data warning before the
    work starts. InputError (one line) on bad input, or when quantization fails or the INT8
    model does not run on the project's engine.
    """
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose from: {', '.join(METHODS)}")
    check_samples(samples)  # the CLI and the dialog name their field; the words say which
    check_seed(seed)
    source = _check_source(store, source_name)
    target = _target_name(store, source, name, method)
    info = inspect_model(source.model)
    quantized = sorted(set(info.op_counts) & QUANTIZED_OPS)
    if quantized:
        raise InputError(
            f"project {source.name!r} is already quantized ({Path(source.model).name} has"
            f" {quantized[0]} nodes); optimize its FP32 source instead"
        )
    given = as_bindings(shapes)
    bindings = given or _project_shapes(store, source)
    static_shapes = calibration_shapes(info.inputs, bindings)
    chosen = _shapes_chosen(static_shapes, bindings, from_benchmark=not given)

    if calibration is not None:
        data = load_calibration_folder(calibration, info.inputs, static_shapes, samples)
        accuracy_samples = data.samples
        accuracy_inputs = "calibration"
        warning = None
    else:
        count = samples or DEFAULT_RANDOM_SAMPLES
        rules = InputSource.for_request(source.model, None, info.inputs).rules
        if method == "static":
            data = random_calibration(info.inputs, static_shapes, count, seed, rules)
        else:  # no calibration: only the held-back set is needed
            data = CalibrationSet(samples=(), source="random", available=count)
        accuracy_samples = held_back_samples(info.inputs, static_shapes, count, seed, rules)
        accuracy_inputs = "held-out"
        what = "calibrated on" if method == "static" else "checked on"
        warning = RANDOM_WARNING.format(what=what)
    if warning and warn is not None:
        warn(warning)
    used = len(accuracy_samples)  # = calibration samples for static; accuracy inputs for dynamic

    engine, device = source.engine, source.device
    made = quantize_model(
        source.model,
        workdir,
        method,
        data.samples,
        progress,
        quantizer=capabilities(engine).quantizer,
    )
    if progress is not None:
        progress(f"checking on {engine}", 0, 0)
    check_runs(made.model, engine, device, static_shapes, accuracy_samples[0])
    report = measure_accuracy(
        source.model,
        made.model,
        accuracy_samples,
        accuracy_inputs,
        progress,
        engine=engine,
        device=device,
        shapes=static_shapes,
    )
    bench_shapes = _bench_shapes(engine, made.model, bindings, static_shapes)
    notes: dict[str, Any] = {
        "optimization": {
            "method": method,
            "tool": made.tool,
            "changes": [chosen, *made.changes],
            "shapes": {name: list(shape) for name, shape in static_shapes.items()},
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
        model=str(made.model),
        engine=engine,
        device=device,
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
        tool=made.tool,
        changes=(chosen, *made.changes),
        shapes=bench_shapes,
    )
