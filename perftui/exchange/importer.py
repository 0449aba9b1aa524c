"""Import of an export in one pass over its records (perftui.exchange.reader): each record
is checked against perftui.exchange.schema and stored as it comes, in one write (Store.merge),
so memory holds one run however large the export. A bad record anywhere is an InputError
naming it, and the write is undone: nothing of a refused import is stored."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.records import Project, RunResult, StoredBenchmark
from perftui.exchange import schema
from perftui.exchange.progress import Progress
from perftui.exchange.reader import Event, document_events, read_events
from perftui.store.codec import MAX_SAMPLES, SAMPLES_CODEC, SamplesDocument
from perftui.store.database import Store

__all__ = ["EXPORT_FORMAT", "MAX_IMPORT_BYTES", "import_document", "import_file", "records"]

EXPORT_FORMAT = 1
MAX_IMPORT_BYTES = 2**31
"""Largest export file read whole (one that `perftui export` laid out is read a run at a
time, whatever its size)."""
SAMPLE_RATIO = 16
"""Most bytes of samples one compressed byte may claim: real latencies compress about 1.3x,
so a blob that claims far more is refused before it is inflated."""
SAMPLE_SLACK = 65_536

SAMPLES_DOC = schema.record(
    {
        "dtype": schema.choice(("float32",)),
        "codec": schema.choice((SAMPLES_CODEC,)),
        "count": schema.integer(0, MAX_SAMPLES),
        "data": schema.text(MAX_IMPORT_BYTES),
    },
    required=("dtype", "codec", "count", "data"),
)


def _not_export(reason: str) -> InputError:
    return InputError(f"not a perftui export: {reason}")


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


Record = Project | StoredBenchmark | tuple[RunResult, SamplesDocument | None]
"""What an export holds, as Store.merge takes it."""


def records(events: Iterator[Event]) -> Iterator[Record]:
    """The export's records, each checked (InputError naming the first bad field) and made a
    record as it comes; a project comes before its benchmarks and runs."""
    budget = _SampleBudget()
    names: list[str] = []
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
            yield _run(data, f"projects[{i}].runs[{j}]", names[i], budget)


def _run(
    data: Any, where: str, project: str, budget: _SampleBudget
) -> tuple[RunResult, SamplesDocument | None]:
    checked = schema.run(data, where)
    samples = checked.get("latency_samples")
    if samples is not None:
        samples = SAMPLES_DOC(samples, f"{where}.latency_samples")
        budget.admit(samples, f"{where}.latency_samples")
    run = RunResult.from_dict(
        {**checked, "id": checked.get("id") or uuid.uuid4().hex, "project": project}
    )
    return run, None if samples is None else SamplesDocument(samples, f"{where}.latency_samples")


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
    read it whole instead."""
    megabytes = Progress(store.notify, "import", _mb(path.stat().st_size), unit="MB")
    return store.merge(records(read_events(path, source, lambda at: megabytes(_mb(at)))))


def _mb(size: int) -> int:
    return round(size / 1e6)
