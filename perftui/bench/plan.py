"""Checks a benchmark request before any child process starts, so bad input is refused
with one clear line (the CLI exits 2) instead of producing a matrix of failed runs."""

from __future__ import annotations

from pathlib import Path

from perftui.bench.data import check_shapes, load_data
from perftui.bench.inputs import resolve_shapes, run_point
from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest
from perftui.engines import get_engine
from perftui.inspection.validate import validate_model_file


def validate_request(request: BenchmarkRequest) -> None:
    """Model file readable, engine known, device available, every setting one the engine
    can honour, every input shape resolvable, the --data arrays fit for every run."""
    project = request.project
    validate_model_file(project.model)
    engine = get_engine(project.engine)
    engine.check_device(project.device)
    if not request.configs:
        raise InputError("the benchmark matrix is empty; give at least one batch and thread count")
    for config in request.configs:
        engine.check_config(config)
    declared = engine.model_inputs(str(Path(project.model)))
    data = load_data(request.data, declared) if request.data else None
    for config in request.configs:
        shapes = resolve_shapes(declared, config.batch, request.shapes, run_point(config))
        engine.check_shapes(declared, shapes, config.batch)
        if data is not None:
            check_shapes(data, shapes, f"run {config.label()}")
