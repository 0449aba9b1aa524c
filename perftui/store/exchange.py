"""Export and import of results: a JSON document that round-trips, and a flat CSV for sheets.

The JSON export is ``{"perftui_export": 1, "exported_at", "generator", "projects": [...]}``
where each project is ``Project.to_dict()`` plus ``"runs"`` (``RunResult.to_dict()``, in the
shape of the CLI contract, each with ``"latency_samples"`` when raw samples are stored:
``{"dtype": "float32", "codec": "zlib+base64", "count", "data"}``) and ``"benchmarks"`` (the
stored requests the runs point to). Importing it again adds nothing (runs are keyed by id).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from perftui import __version__
from perftui.domain.errors import InputError
from perftui.domain.records import RUN_STATUSES, Project, RunResult, StoredBenchmark
from perftui.store.codec import samples_from_document, samples_to_document
from perftui.store.database import Store
from perftui.store.layout import now_iso

__all__ = [
    "CSV_COLUMNS",
    "EXPORT_FORMAT",
    "export_csv",
    "export_document",
    "import_document",
    "parse_export",
]

EXPORT_FORMAT = 1

CSV_COLUMNS = (
    "project",
    "model",
    "engine",
    "device",
    "run_id",
    "started_at",
    "batch",
    "threads",
    "streams",
    "requests",
    "hint",
    "api",
    "precision",
    "status",
    "error",
    "iterations",
    "duration_s",
    "throughput_fps",
    "latency_min_ms",
    "latency_mean_ms",
    "latency_median_ms",
    "latency_p90_ms",
    "latency_p99_ms",
    "latency_max_ms",
    "latency_stdev_ms",
    "first_inference_ms",
    "compile_ms",
)


def _selected(store: Store, names: Sequence[str] | None) -> list[Project]:
    if names is None:
        return store.projects()
    if isinstance(names, str):
        names = [names]
    selected: list[Project] = []
    for name in dict.fromkeys(names):
        project = store.get_project(name)
        if project is None:
            known = ", ".join(p.name for p in store.projects()) or "none yet"
            raise InputError(f"no project named '{name}' (projects: {known})")
        selected.append(project)
    return selected


def export_document(
    store: Store, projects: Sequence[str] | None = None, *, include_samples: bool = True
) -> dict[str, Any]:
    """The chosen projects (all by default) with their runs, newest first, as one document."""
    exported = []
    for project in _selected(store, projects):
        runs = []
        for run in store.runs(project.name):
            data = run.to_dict()
            if include_samples:
                samples = store.latency_samples(run.id)
                if samples is not None:
                    data["latency_samples"] = samples_to_document(samples)
            runs.append(data)
        benchmarks = [b.to_dict() for b in store.project_benchmarks(project.name)]
        exported.append({**project.to_dict(), "runs": runs, "benchmarks": benchmarks})
    return {
        "perftui_export": EXPORT_FORMAT,
        "exported_at": now_iso(),
        "generator": f"perftui {__version__}",
        "projects": exported,
    }


def _cell(value: Any) -> Any:
    return "" if value is None else value


def export_csv(store: Store, projects: Sequence[str] | None = None) -> str:
    """One row per run (header first): identity, settings, outcome and latency figures in ms."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for project in _selected(store, projects):
        for run in store.runs(project.name):
            c = run.config
            lat = run.latency_ms
            stats = (
                (lat.min, lat.mean, lat.median, lat.p90, lat.p99, lat.max, lat.stdev)
                if lat
                else (None,) * 7
            )
            row = (
                project.name,
                project.model,
                project.engine,
                project.device,
                run.id,
                run.started_at,
                c.batch,
                c.threads,
                c.streams,
                c.requests,
                c.hint,
                c.api,
                c.precision,
                run.status,
                run.error,
                run.iterations,
                run.duration_s,
                run.throughput_fps,
                *stats,
                run.first_inference_ms,
                run.compile_ms,
            )
            writer.writerow([_cell(v) for v in row])
    return out.getvalue()


def parse_export(text: str, source: str = "the input") -> dict[str, Any]:
    """Parse the text of a JSON export; InputError (one line) if it is not JSON."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        first = text.lstrip()[:200].splitlines()[0] if text.strip() else ""
        hint = (
            "; it looks like CSV — import reads the JSON that `perftui export` writes"
            if first.startswith("project,") or first.count(",") >= 3
            else ""
        )
        raise InputError(
            f"{source} is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}){hint}"
        ) from None
    if not isinstance(document, dict):
        raise InputError(f"{source} is not a perftui export (expected a JSON object)")
    return document


def _not_export(reason: str) -> InputError:
    return InputError(f"not a perftui export: {reason}")


def _check_project(index: int, data: Any) -> Project:
    where = f"project #{index + 1}"
    if not isinstance(data, dict):
        raise _not_export(f"{where} is not an object")
    for key in ("name", "model", "engine"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise _not_export(f"{where} has no {key!r}")
    where = f"project '{data['name']}'"
    if not isinstance(data.get("device", "CPU"), str):
        raise _not_export(f"{where} has a non-text 'device'")
    if not isinstance(data.get("notes", {}), dict):
        raise _not_export(f"{where} has 'notes' that is not an object")
    if not isinstance(data.get("created_at", ""), str):
        raise _not_export(f"{where} has a non-text 'created_at'")
    if data.get("source_project") is not None and not isinstance(data["source_project"], str):
        raise _not_export(f"{where} has a non-text 'source_project'")
    for key in ("runs", "benchmarks"):
        if not isinstance(data.get(key, []), list):
            raise _not_export(f"{where}: {key!r} is not a list")
    return Project.from_dict({k: v for k, v in data.items() if k not in ("runs", "benchmarks")})


def _check_run(project: str, index: int, data: Any) -> tuple[RunResult, np.ndarray | None]:
    where = f"project '{project}', run #{index + 1}"
    if not isinstance(data, dict):
        raise _not_export(f"{where} is not an object")
    if not isinstance(data.get("config"), dict):
        raise _not_export(f"{where} has no 'config' object")
    if not isinstance(data.get("id", ""), str):
        raise _not_export(f"{where} has a non-text 'id'")
    if data.get("status", "ok") not in RUN_STATUSES:
        raise _not_export(f"{where} has an unknown status {data.get('status')!r}")
    for key in ("latency_ms", "resolved"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise _not_export(f"{where}: {key!r} is not an object")
    if data.get("layers") is not None and not (
        isinstance(data["layers"], list) and all(isinstance(x, dict) for x in data["layers"])
    ):
        raise _not_export(f"{where}: 'layers' is not a list of objects")
    try:
        run = RunResult.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _not_export(f"{where} is malformed ({type(exc).__name__}: {exc})") from None
    samples = None
    if data.get("latency_samples") is not None:
        if not isinstance(data["latency_samples"], dict):
            raise _not_export(f"{where}: 'latency_samples' is not an object")
        try:
            samples = samples_from_document(data["latency_samples"])
        except ValueError as exc:
            raise _not_export(f"{where}: {exc}") from None
    return run, samples


def _check_benchmark(project: Project, index: int, data: Any) -> StoredBenchmark:
    where = f"project '{project.name}', benchmark #{index + 1}"
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise _not_export(f"{where} has no 'id'")
    try:
        stored = StoredBenchmark.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _not_export(f"{where} is malformed ({type(exc).__name__}: {exc})") from None
    renamed = replace(stored.request.project, name=project.name)
    return replace(
        stored, project_name=project.name, request=replace(stored.request, project=renamed)
    )


def import_document(store: Store, document: dict[str, Any]) -> tuple[int, int]:
    """Merge an export into the store, all or nothing; (projects added, runs added).

    Runs (and benchmarks) whose id is already stored are skipped, so importing twice adds
    nothing. A project name that exists with another model/engine/device is an InputError.
    """
    if not isinstance(document, dict) or "perftui_export" not in document:
        raise _not_export('expected a JSON object with "perftui_export" (from `perftui export`)')
    version = document["perftui_export"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _not_export(f"unknown format {version!r}")
    if version > EXPORT_FORMAT:
        raise InputError(
            f"this export was written by a newer perftui (format {version}; this version"
            f" reads {EXPORT_FORMAT}); upgrade perftui"
        )
    raw_projects = document.get("projects")
    if not isinstance(raw_projects, list):
        raise _not_export('"projects" is not a list')
    projects: list[Project] = []
    runs: list[tuple[RunResult, np.ndarray | None]] = []
    benchmarks: list[StoredBenchmark] = []
    seen: set[str] = set()
    for i, data in enumerate(raw_projects):
        project = _check_project(i, data)
        if project.name in seen:
            raise _not_export(f"project '{project.name}' appears twice")
        seen.add(project.name)
        projects.append(project)
        for j, run_data in enumerate(data.get("runs", [])):
            run, samples = _check_run(project.name, j, run_data)
            runs.append((replace(run, project=project.name), samples))
        for j, bench in enumerate(data.get("benchmarks", [])):
            benchmarks.append(_check_benchmark(project, j, bench))
    return store.merge(projects, runs, benchmarks)
