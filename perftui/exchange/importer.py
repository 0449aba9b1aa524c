"""Import of an export, in two passes over its records (perftui.exchange.reader): the
first checks every record against perftui.exchange.schema and keeps only the projects, the
benchmarks and the run ids; the second stores the runs one at a time in one write
(Store.merge with the ids known). A bad record anywhere is an InputError naming it before
anything is written, so memory holds one run however large the export."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.records import Project, RunResult, StoredBenchmark
from perftui.exchange import schema
from perftui.exchange.reader import Event, NotStreamable, document_events, read_events
from perftui.store.codec import MAX_SAMPLES, SAMPLES_CODEC, SamplesDocument
from perftui.store.database import Store
from perftui.store.progress import Progress

__all__ = [
    "EXPORT_FORMAT",
    "MAX_IMPORT_BYTES",
    "import_document",
    "import_events",
    "import_file",
]

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

Events = Callable[[], Iterator[Event]]
"""A fresh pass over an export's records (called once per pass)."""
Tick = Callable[[int], None]


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


@dataclass
class Checked:
    """What the checking pass keeps: projects, benchmarks and each run's id, in order
    (a fresh one for a run that has none, given to it again when it is stored)."""

    projects: list[Project] = field(default_factory=list)
    benchmarks: list[StoredBenchmark] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    crcs: list[int] = field(default_factory=list)
    """Each run's line's CRC-32: the second pass takes a run as checked if its line is the
    same (a file changed between the passes is refused)."""


def check_events(events: Iterator[Event], tick: Tick) -> Checked:
    """Check every record (InputError naming the first bad field); see `Checked`."""
    found = Checked()
    budget = _SampleBudget()
    for kind, i, j, data, crc in events:
        if kind == "head":
            _check_head(data)
        elif kind == "bad":
            raise _not_export(data)
        elif kind == "project":
            checked = schema.project(data, f"projects[{i}]")
            fields = {k: v for k, v in checked.items() if k not in ("runs", "benchmarks")}
            project = Project.from_dict(fields)
            if any(p.name == project.name for p in found.projects):
                raise _not_export(f"project '{project.name}' appears twice")
            found.projects.append(project)
            for n, bench in enumerate(checked.get("benchmarks", [])):
                where = f"projects[{i}].benchmarks[{n}]"
                found.benchmarks.append(_check_benchmark(project, where, bench))
        elif kind == "run":
            where = f"projects[{i}].runs[{j}]"
            checked = schema.run(data, where)
            samples = checked.get("latency_samples")
            if samples is not None:
                samples = SAMPLES_DOC(samples, f"{where}.latency_samples")
                budget.admit(samples, f"{where}.latency_samples")
            found.ids.append(checked.get("id") or uuid.uuid4().hex)
            found.crcs.append(crc)
            tick(len(found.ids))
    return found


def _runs(
    events: Iterator[Event], found: Checked
) -> Iterator[tuple[RunResult, SamplesDocument | None]]:
    """The runs of a checked export, made records one at a time as they are stored."""
    names = [p.name for p in found.projects]
    n = 0
    for kind, i, j, data, crc in events:
        if kind != "run":
            continue
        if n >= len(found.ids) or found.crcs[n] != crc or i >= len(names):
            raise InputError("the export changed while it was imported; nothing was stored")
        where = f"projects[{i}].runs[{j}]"
        checked = schema.run_again(data, where)
        samples = checked.get("latency_samples")
        run = replace(RunResult.from_dict(checked), id=found.ids[n], project=names[i])
        n += 1
        yield run, None if samples is None else SamplesDocument(samples, f"{where}.latency_samples")


def import_events(store: Store, events: Events, checking: Tick) -> tuple[int, int]:
    """Merge an export's records into the store, all or nothing; (projects added, runs
    added). Runs (and benchmarks) whose id is stored already are skipped, so importing twice
    adds nothing; a project name that exists with another model/engine/device is an
    InputError. `checking` hears the runs checked so far in the first pass."""
    checked = check_events(events(), checking)
    return store.merge(
        checked.projects,
        _runs(events(), checked),
        checked.benchmarks,
        total=len(checked.ids),
    )


def import_document(store: Store, document: dict[str, Any]) -> tuple[int, int]:
    """`import_events` on an export parsed whole."""
    if not isinstance(document, dict):
        raise _not_export('expected a JSON object with "perftui_export" (from `perftui export`)')
    projects = document.get("projects")
    total = sum(
        len(p["runs"])
        for p in (projects if isinstance(projects, list) else ())
        if isinstance(p, dict) and isinstance(p.get("runs"), list)
    )
    tick = Progress(store.notify, "import: checking", total)
    return import_events(store, lambda: document_events(document), tick)


def import_file(store: Store, path: Path, source: str) -> tuple[int, int]:
    """`import_events` on a file that `perftui export` wrote, a line at a time; NotStreamable
    (before anything is written) when it is laid out otherwise: read it whole instead. The
    first pass says how many MB of the file it has checked."""
    megabytes = Progress(store.notify, "import: checking", _mb(path.stat().st_size), unit="MB")
    passes = 0

    def events() -> Iterator[Event]:
        nonlocal passes
        passes += 1
        if passes == 1:
            return read_events(path, source, lambda at: megabytes(_mb(at)))
        return _again(path, source)

    return import_events(store, events, lambda _done: None)


def _mb(size: int) -> int:
    return round(size / 1e6)


def _again(path: Path, source: str) -> Iterator[Event]:
    try:
        yield from read_events(path, source)
    except NotStreamable:
        raise InputError(f"{source} changed while it was imported; nothing was stored") from None
