"""Checks a benchmark request before any child process starts, so bad input is refused
with one clear line (the CLI exits 2) instead of producing a matrix of failed runs."""

from __future__ import annotations

from pathlib import Path

from perftui.bench.inputs import resolve_shapes
from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest
from perftui.engines import get_engine
from perftui.inspection.validate import validate_model_file


def validate_request(request: BenchmarkRequest) -> None:
    """Model file readable, engine known, device available, every setting one the engine
    can honour, every input shape resolvable."""
    project = request.project
    validate_model_file(project.model)
    engine = get_engine(project.engine)
    engine.check_device(project.device)
    if not request.configs:
        raise InputError("the benchmark matrix is empty; give at least one batch and thread count")
    for config in request.configs:
        engine.check_config(config)
    declared = engine.model_inputs(str(Path(project.model)))
    for batch in sorted({config.batch for config in request.configs}):
        resolve_shapes(declared, batch, request.shapes)
