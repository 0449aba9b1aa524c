"""Export and import of results: a JSON document that round-trips, and a flat CSV for sheets.

The JSON export is ``{"perftui_export": 1, "exported_at", "generator", "projects": [...]}``
where each project is ``Project.to_dict()`` plus ``"runs"`` (``RunResult.to_dict()``, in the
shape of the CLI contract, each with ``"latency_samples"`` when raw samples are stored:
``{"dtype": "float32", "codec": "zlib+base64", "count", "data"}``) and ``"benchmarks"`` (the
stored requests the runs point to). Importing it again adds nothing (runs are keyed by id).
Export is written as a stream, one run at a time; import checks the whole file against
perftui.store.schema before anything is stored.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, TextIO

from perftui import __version__
from perftui.domain.errors import InputError
from perftui.domain.records import Project, RunResult, StoredBenchmark
from perftui.store import schema
from perftui.store.codec import MAX_SAMPLES, SAMPLES_CODEC, SamplesDocument
from perftui.store.database import Store
from perftui.store.layout import now_iso
from perftui.store.progress import Progress

__all__ = [
    "CSV_COLUMNS",
    "EXPORT_FORMAT",
    "MAX_IMPORT_BYTES",
    "export_csv",
    "import_document",
    "parse_export",
    "write_export",
]

EXPORT_FORMAT = 1
MAX_IMPORT_BYTES = 2**31
"""Largest export file `import` reads (a 10,000-run export with samples is about 250 MB)."""
SAMPLE_RATIO = 16
"""Most bytes of samples one compressed byte may claim: real latencies compress about 1.3x,
so a blob that claims far more is refused before it is inflated."""
SAMPLE_SLACK = 65_536

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


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def export_chunks(
    store: Store, projects: Sequence[str] | None = None, *, include_samples: bool = True
) -> Iterator[str]:
    """The export document as JSON text, one run per line: the chosen projects (all by
    default) with their runs, newest first. One run is held at a time (Store.stream_runs)."""
    head = {"perftui_export": EXPORT_FORMAT, "exported_at": now_iso()}
    yield _dumps({**head, "generator": f"perftui {__version__}"})[:-1] + ',"projects":['
    for p, project in enumerate(_selected(store, projects)):
        benchmarks = [b.to_dict() for b in store.project_benchmarks(project.name)]
        fields = _dumps({**project.to_dict(), "benchmarks": benchmarks})
        yield ("," if p else "") + "\n" + fields[:-1] + ',"runs":['
        runs = store.stream_runs(project.name, with_samples=include_samples)
        for r, (run, layers, samples) in enumerate(runs):
            data = {**run.to_dict(), "layers": layers}
            if samples is not None:
                data["latency_samples"] = samples
            yield ("," if r else "") + "\n" + _dumps(data)
        yield "]}"
    yield "\n]}\n"


def write_export(
    store: Store,
    out: TextIO,
    projects: Sequence[str] | None = None,
    *,
    include_samples: bool = True,
) -> None:
    """Write the JSON export to `out` as a stream (see `export_chunks`)."""
    for chunk in export_chunks(store, projects, include_samples=include_samples):
        out.write(chunk)


def _cell(value: Any) -> Any:
    return "" if value is None else value


def export_csv(store: Store, projects: Sequence[str] | None = None) -> str:
    """One row per run (header first): identity, settings, outcome and latency figures in ms."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for project in _selected(store, projects):
        for run, _, _ in store.stream_runs(project.name, with_layers=False, with_samples=False):
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


def parse_export(text: str | bytes, source: str = "the input") -> dict[str, Any]:
    """Parse the text of a JSON export; InputError (one line) if it is not JSON, or holds a
    number or a nesting no export has."""
    try:
        document = schema.loads_bounded(text, source)
    except json.JSONDecodeError as exc:
        if isinstance(text, bytes):
            text = text[:200].decode("utf-8", "replace")
        first = text.lstrip()[:200].splitlines()[0] if text.strip() else ""
        hint = (
            "; it looks like CSV — import reads the JSON that `perftui export` writes"
            if first.startswith("project,") or first.count(",") >= 3
            else ""
        )
        raise InputError(
            f"{source} is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}){hint}"
        ) from None
    except UnicodeDecodeError:
        raise InputError(f"{source} is not UTF-8 text") from None
    if not isinstance(document, dict):
        raise InputError(f"{source} is not a perftui export (expected a JSON object)")
    return document


def _not_export(reason: str) -> InputError:
    return InputError(f"not a perftui export: {reason}")


SAMPLES_DOC = schema.record(
    {
        "dtype": schema.choice(("float32",)),
        "codec": schema.choice((SAMPLES_CODEC,)),
        "count": schema.integer(0, MAX_SAMPLES),
        "data": schema.text(MAX_IMPORT_BYTES),
    },
    required=("dtype", "codec", "count", "data"),
)


class _SampleBudget:
    """Refuses samples that claim much more than their compressed size, before inflating."""

    def __init__(self) -> None:
        self.claimed = 0
        self.encoded = 0

    def admit(self, doc: dict[str, Any], where: str) -> None:
        claimed, encoded = doc["count"] * 4, len(doc["data"]) * 3 // 4
        self.claimed += claimed
        self.encoded += encoded
        for claim, size in ((claimed, encoded), (self.claimed, self.encoded)):
            if claim > SAMPLE_RATIO * size + SAMPLE_SLACK:
                raise schema.SchemaError(
                    f"{where}: {doc['count']} samples ({claim / 1e6:.1f} MB) cannot come from"
                    f" {size / 1e3:.1f} kB of data; refused before inflating"
                )


def _check_project(index: int, data: Any) -> tuple[Project, dict[str, Any]]:
    checked = schema.project(data, f"projects[{index}]")
    fields = {k: v for k, v in checked.items() if k not in ("runs", "benchmarks")}
    return Project.from_dict(fields), checked


def _check_run(where: str, data: Any, budget: _SampleBudget) -> tuple[RunResult, dict | None]:
    checked = schema.run(data, where)
    samples = checked.get("latency_samples")
    if samples is not None:
        samples = SAMPLES_DOC(samples, f"{where}.latency_samples")
        budget.admit(samples, f"{where}.latency_samples")
    return RunResult.from_dict(checked), samples


def _check_benchmark(project: Project, where: str, data: Any) -> StoredBenchmark:
    stored = StoredBenchmark.from_dict(schema.benchmark(data, where))
    renamed = replace(stored.request.project, name=project.name)
    return replace(
        stored, project_name=project.name, request=replace(stored.request, project=renamed)
    )


def import_document(store: Store, document: dict[str, Any]) -> tuple[int, int]:
    """Merge an export into the store, all or nothing; (projects added, runs added).

    The whole document is checked first (perftui.store.schema): the first bad field is an
    InputError naming it, and nothing is written. Runs (and benchmarks) whose id is already
    stored are skipped, so importing twice adds nothing. A project name that exists with
    another model/engine/device is an InputError.
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
    runs: list[tuple[RunResult, dict[str, Any] | None, str]] = []
    benchmarks: list[StoredBenchmark] = []
    budget = _SampleBudget()
    total = sum(len(p.get("runs") or ()) for p in raw_projects if isinstance(p, dict))
    tick = Progress(store.notify, "import: checking", total)
    for i, data in enumerate(raw_projects):
        project, checked = _check_project(i, data)
        if any(p.name == project.name for p in projects):
            raise _not_export(f"project '{project.name}' appears twice")
        projects.append(project)
        for j, run_data in enumerate(checked.get("runs", [])):
            where = f"projects[{i}].runs[{j}]"
            tick(len(runs))
            run, samples = _check_run(where, run_data, budget)
            runs.append((replace(run, project=project.name), samples, where))
        for j, bench in enumerate(checked.get("benchmarks", [])):
            benchmarks.append(_check_benchmark(project, f"projects[{i}].benchmarks[{j}]", bench))
    decoded = [
        (run, None if doc is None else SamplesDocument(doc, f"{where}.latency_samples"))
        for run, doc, where in runs
    ]  # decoded one run at a time as it is stored
    return store.merge(projects, decoded, benchmarks)
