"""Export and import of results: a JSON document that round-trips, and a flat CSV for sheets.

The JSON export is ``{"perftui_export": 1, "exported_at", "generator", "projects": [...]}``
where each project is ``Project.to_dict()`` plus ``"runs"`` (``RunResult.to_dict()``, in the
shape of the CLI contract, each with ``"latency_samples"`` when raw samples are stored:
``{"dtype": "float32", "codec": "zlib+base64", "count", "data"}``) and ``"benchmarks"`` (the
stored requests the runs point to). Importing it again adds nothing (runs are keyed by id).
Export is written as a stream, one run per line; import reads it back a line at a time
(perftui.exchange.reader) and checks the whole file against perftui.exchange.schema before
anything is stored (perftui.exchange.importer).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from perftui import __version__
from perftui.domain.errors import InputError
from perftui.domain.measurement.context import ran_precision
from perftui.domain.records import Project
from perftui.domain.settings import SETTINGS
from perftui.exchange import schema
from perftui.exchange.importer import EXPORT_FORMAT, MAX_IMPORT_BYTES, import_document
from perftui.store.database import Store
from perftui.store.layout import now_iso

if TYPE_CHECKING:
    from perftui.domain.traffic.figures import TrafficFigures

__all__ = [
    "CSV_COLUMNS",
    "EXPORT_FORMAT",
    "MAX_IMPORT_BYTES",
    "export_csv",
    "import_document",
    "parse_export",
    "write_export",
]

CSV_COLUMNS = (
    "project",
    "model",
    "engine",
    "device",
    "run_id",
    "started_at",
    *(s.name for s in SETTINGS),
    "precision_run",
    "status",
    "error",
    "iterations",
    "duration_s",
    "throughput_fps",
    "throughput_ci_low",
    "throughput_ci_high",
    "verdict",
    "verdict_reasons",
    "latency_median_ci_low_ms",
    "latency_median_ci_high_ms",
    "latency_min_ms",
    "latency_mean_ms",
    "latency_median_ms",
    "latency_p90_ms",
    "latency_p99_ms",
    "latency_max_ms",
    "latency_stdev_ms",
    "first_inference_ms",
    "compile_ms",
    "peak_window_mib",
    "peak_compile_mib",
    "offered_rate",
    "achieved_rate",
    "achieved_rate_ci_low",
    "achieved_rate_ci_high",
    "arrival_p99_ms",
    "arrival_p99_ci_low_ms",
    "arrival_p99_ci_high_ms",
    "lateness_p99_ms",
    "saturated",
)
"""The intervals are 95 % (empty for an end too few samples bound), with the run's verdict
and its reasons joined by "; ", as the store keeps them; the peaks are resident MiB (the
timed window's, the compile's), empty where not measured. A run at a rate adds its open
loop's figures (requests/s; p99 from each request's scheduled arrival; the scheduler's
lateness; saturated true or false, the reasons being the verdict's), empty for a closed
loop."""


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
    default) with their runs as stored. One run is held at a time (Store.stream_runs)."""
    selected = _selected(store, projects)  # an unknown name refused before a byte is written
    head = {"perftui_export": EXPORT_FORMAT, "exported_at": now_iso()}
    yield _dumps({**head, "generator": f"perftui {__version__}"})[:-1] + ',"projects":['
    for p, project in enumerate(selected):
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
    out: IO[str],
    projects: Sequence[str] | None = None,
    *,
    include_samples: bool = True,
) -> None:
    """Write the JSON export to `out` as a stream (see `export_chunks`)."""
    for chunk in export_chunks(store, projects, include_samples=include_samples):
        out.write(chunk)


def _cell(value: Any) -> Any:
    """A CSV cell: text a spreadsheet would take for a formula is quoted with a leading '."""
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return "" if value is None else value


def _mib(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _traffic_cells(traffic: TrafficFigures | None) -> tuple[Any, ...]:
    if traffic is None:
        return (None,) * 9
    p99 = traffic.latency.get("p99")
    return (
        traffic.offered_rate,
        traffic.achieved_rate,
        *(traffic.achieved.as_list() if traffic.achieved else (None, None)),
        p99.value if p99 else None,
        *(p99.as_list() if p99 else (None, None)),
        traffic.lateness_p99_ms,
        "true" if traffic.is_saturated else "false",
    )


def export_csv(store: Store, projects: Sequence[str] | None = None) -> str:
    """One row per run (header first): identity, settings, outcome, throughput and median
    latency with their intervals and the run's verdict, latency figures in ms and the memory
    peaks in MiB."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for project in _selected(store, projects):
        for run, figures in store.stream_figures(project.name):
            c = run.config
            lat = run.latency_ms
            stats = (
                (lat.min, lat.mean, lat.median, lat.p90, lat.p99, lat.max, lat.stdev)
                if lat
                else (None,) * 7
            )
            memory = run.memory
            median = figures.latency.get("median")
            row = (
                project.name,
                project.model,
                project.engine,
                project.device,
                run.id,
                run.started_at,
                *(s.csv(getattr(c, s.name)) for s in SETTINGS),
                ran_precision(run),
                run.status,
                run.error,
                run.iterations,
                run.duration_s,
                run.throughput_fps,
                *(figures.throughput.as_list() if figures.throughput else (None, None)),
                figures.verdict.status,
                "; ".join(figures.verdict.reasons),
                *(median.as_list() if median else (None, None)),
                *stats,
                run.first_inference_ms,
                run.compile_ms,
                _mib(memory.window_peak_mib if memory else None),
                _mib(memory.compile_peak_mib if memory else None),
                *_traffic_cells(run.traffic),
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
            if not first.startswith(("{", "[")) and first.count(",") >= 3
            else ""
        )
        raise InputError(
            f"{source} is not JSON ({exc.msg}: line {exc.lineno}, column {exc.colno}){hint}"
        ) from None
    except UnicodeDecodeError:
        raise InputError(f"{source} is not UTF-8 text") from None
    if not isinstance(document, dict):
        raise InputError(f"{source} is not a perftui export (expected a JSON object)")
    return document
