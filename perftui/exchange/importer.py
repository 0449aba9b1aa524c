"""Import of an export in one pass over its records (perftui.exchange.reader): each record
is checked against perftui.exchange.schema and stored as it comes, in one write (Store.merge),
so memory holds one run however large the export. A bad record anywhere is an InputError
naming it, and the write is undone: nothing of a refused import is stored."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.records import Project, StoredBenchmark
from perftui.exchange import schema
from perftui.exchange.prepare import (
    AHEAD,
    MAX_IMPORT_BYTES,
    Line,
    Ready,
    Workers,
    batched,
    ordered,
    ready_run,
    refused,
)
from perftui.exchange.progress import Progress
from perftui.exchange.reader import Event, document_events, read_events
from perftui.store.database import Store
from perftui.store.runs import Prepared

__all__ = ["EXPORT_FORMAT", "MAX_IMPORT_BYTES", "import_document", "import_file", "records"]

EXPORT_FORMAT = 1
PARALLEL_BYTES = 16_000_000
"""An export file at least this large has its runs prepared by worker processes (one per
core, at most `MOST_WORKERS`) while this process stores them; a smaller one is done before
they would have started."""
MOST_WORKERS = 8


def _not_export(reason: str) -> InputError:
    return InputError(f"not a perftui export: {reason}")


class _Admission:
    """Refuses a run whose id an earlier run of the import has, and samples that claim much
    more than all the import's data can hold (each run's claim is checked before it is
    inflated: perftui.exchange.prepare)."""

    def __init__(self) -> None:
        self.claimed = 0
        self.encoded = 0
        self.ids: set[str] = set()

    def admit(self, ready: Ready) -> Prepared:
        run_id = ready.prepared.run.id
        if run_id in self.ids:
            raise _not_export(f"{ready.where}: run id '{run_id}' appears twice")
        self.ids.add(run_id)
        self.claimed += ready.claimed
        self.encoded += ready.encoded
        at = f"{ready.where}.latency_samples"
        error = refused(self.claimed, self.encoded, ready.claimed // 4, at)
        if error is not None:
            raise error
        return ready.prepared


def _check_head(head: Any) -> None:
    if not isinstance(head, dict) or "perftui_export" not in head:
        raise _not_export('expected a JSON object with "perftui_export" (from `perftui export`)')
    version = head["perftui_export"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _not_export(f"unknown format {version!r}")
    if version > EXPORT_FORMAT:
        raise InputError(
            f"this export was written by a newer perftui (format {version}; this version"
            f" reads {EXPORT_FORMAT}); upgrade perftui"
        )


def _check_benchmark(project: Project, where: str, data: Any) -> StoredBenchmark:
    stored = StoredBenchmark.from_dict(schema.benchmark(data, where))
    renamed = replace(stored.request.project, name=project.name)
    return replace(
        stored, project_name=project.name, request=replace(stored.request, project=renamed)
    )


Record = Project | StoredBenchmark | Prepared
"""What an export holds, as Store.merge takes it."""


def records(
    events: Iterator[Event], source: str = "", workers: Workers | None = None
) -> Iterator[Record]:
    """The export's records, each checked (InputError naming the first bad field) and made a
    record as it comes; a project comes before its benchmarks and runs. With `workers` the
    events' runs are lines (read_events with raw_runs) the workers decode and prepare."""
    names: list[str] = []

    def items() -> Iterator[Record | Line | Ready]:
        for kind, i, j, data in events:
            if kind == "head":
                _check_head(data)
            elif kind == "bad":
                raise _not_export(data)
            elif kind == "project":
                checked = schema.project(data, f"projects[{i}]")
                fields = {k: v for k, v in checked.items() if k not in ("runs", "benchmarks")}
                project = Project.from_dict(fields)
                if project.name in names:
                    raise _not_export(f"project '{project.name}' appears twice")
                names.append(project.name)
                yield project
                for n, bench in enumerate(checked.get("benchmarks", [])):
                    yield _check_benchmark(project, f"projects[{i}].benchmarks[{n}]", bench)
            elif kind == "run":
                where = f"projects[{i}].runs[{j}]"
                if workers is None:
                    yield ready_run(data, where, names[i])
                else:
                    raw, number = data  # read_events with raw_runs: the line and its number
                    yield Line(raw, number, where, names[i], source)

    found = items()
    if workers is not None:
        found = ordered(batched(found, workers), workers.count * AHEAD)
    admission = _Admission()
    for item in found:
        assert not isinstance(item, Line), "a run's line goes to the workers"
        yield admission.admit(item) if isinstance(item, Ready) else item


def import_document(store: Store, document: dict[str, Any]) -> tuple[int, int]:
    """Merge an export parsed whole into the store, all or nothing; (projects added, runs
    added). Runs (and benchmarks) whose id is stored already are skipped, so importing twice
    adds nothing; a project name that exists with another model/engine/device is an
    InputError."""
    if not isinstance(document, dict):
        raise _not_export('expected a JSON object with "perftui_export" (from `perftui export`)')
    projects = document.get("projects")
    total = sum(
        len(p["runs"])
        for p in (projects if isinstance(projects, list) else ())
        if isinstance(p, dict) and isinstance(p.get("runs"), list)
    )
    tick = Progress(store.notify, "import", total)
    runs = 0

    def counted(events: Iterator[Event]) -> Iterator[Event]:
        nonlocal runs
        for event in events:
            runs += event[0] == "run"
            tick(runs)
            yield event

    return store.merge(records(counted(document_events(document))))


def import_file(store: Store, path: Path, source: str) -> tuple[int, int]:
    """`import_document` of a file that `perftui export` wrote, a line at a time, saying how
    many MB of it it has read; NotStreamable (nothing stored) when it is laid out otherwise:
    read it whole instead. A large file's runs are prepared by worker processes."""
    size = path.stat().st_size
    megabytes = Progress(store.notify, "import", _mb(size), unit="MB")
    cores = os.cpu_count() or 1
    count = min(cores, MOST_WORKERS) if size >= PARALLEL_BYTES and cores > 1 else 0
    if not count:
        return store.merge(records(read_events(path, source, lambda at: megabytes(_mb(at)))))
    with Workers(count) as workers:
        events = read_events(path, source, lambda at: megabytes(_mb(at)), raw_runs=True)
        return store.merge(records(events, source, workers))


def _mb(size: int) -> int:
    return round(size / 1e6)
