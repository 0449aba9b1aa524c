"""Checks a benchmark request before any child process starts, so bad input is refused
with one clear line (the CLI exits 2) instead of producing a matrix of failed runs."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from perftui.bench.data import DATA_BUDGET, check_rules, check_shapes, load_data
from perftui.bench.inputs import resolve_shapes, run_point
from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest, TensorSpec
from perftui.engines import get_engine
from perftui.inspection.validate import check_onnx_graph, model_format, validate_model_file

GIB = 2**30


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
    if model_format(project.model) == "onnx":
        check_onnx_graph(project.model, engine.capabilities)
    declared = engine.model_inputs(str(Path(project.model)))
    available = available_memory()
    runs = []
    for config in request.configs:
        shapes = resolve_shapes(declared, config.batch, request.shapes, run_point(config))
        engine.check_shapes(declared, shapes, config.batch)
        needed = input_bytes(declared, shapes)
        if available is not None and needed > available:
            raise InputError(
                f"run {config.label()}: its inputs need {needed / GIB:,.1f} GiB of memory"
                f" ({_described(declared, shapes)}) and the machine has"
                f" {available / GIB:,.1f} GiB available; use a smaller --shape or --batch"
            )
        runs.append((f"run {config.label()}", shapes))
    if request.data:
        check_data(request.data, project.model, declared, runs, available)


def check_data(
    path: str,
    model: str,
    declared: Sequence[TensorSpec],
    runs: Sequence[tuple[str, Mapping[str, tuple[int, ...]]]],
    available: int | None,
) -> None:
    """The --data arrays fit every run (checked from their headers, before any is read), take
    at most a quarter of the memory available, and index no table past its end."""
    from perftui.inspection.input_roles import input_rules

    budget = DATA_BUDGET if available is None else min(DATA_BUDGET, available // 4)
    data = load_data(path, declared, runs, budget)
    for label, shapes in runs:
        check_shapes(data, shapes, label)
    try:
        rules = input_rules(model)
    except Exception:  # the graph only refines the check; the engine still refuses bad data
        return
    check_rules(data, rules)


def _itemsize(dtype: str) -> int:
    try:
        return np.dtype(dtype).itemsize
    except TypeError:
        return 2 if "16" in dtype else 4  # bfloat16 and other names numpy lacks


def input_bytes(declared: Sequence[TensorSpec], shapes: Mapping[str, Sequence[int]]) -> int:
    """Bytes of one set of input tensors at the resolved shapes."""
    return sum(math.prod(shapes.get(spec.name, ())) * _itemsize(spec.dtype) for spec in declared)


def _described(declared: Sequence[TensorSpec], shapes: Mapping[str, Sequence[int]]) -> str:
    return ", ".join(
        f"{spec.name} {'x'.join(map(str, shapes.get(spec.name, ())))} {spec.dtype}"
        for spec in declared
    )


def available_memory() -> int | None:
    """Bytes of memory the machine can give now (MemAvailable), or None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None
