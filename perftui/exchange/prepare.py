"""An export's runs made ready to store (checked, their payloads encoded, their figures
computed: perftui.store.runs.prepare), in this process or by worker processes while this
one stores them in order. The workers only compute: this process stays the one writer."""

from __future__ import annotations

import os
import signal
import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import fields
from multiprocessing import get_context
from typing import Any, NamedTuple

from perftui.domain.errors import InputError, StoreError
from perftui.domain.records import LayerProfile, RunResult
from perftui.exchange import schema
from perftui.exchange.reader import one_record, text
from perftui.processes import PARENT_ENV, die_with_parent
from perftui.store.codec import MAX_SAMPLES, SAMPLES_CODEC, samples_blob_from_document
from perftui.store.runs import Prepared, prepare

__all__ = ["MAX_IMPORT_BYTES", "Line", "Ready", "Workers", "ordered", "ready_run"]

MAX_IMPORT_BYTES = 2**31
"""Largest export file read whole, and most text one field may hold."""
SAMPLE_RATIO = 16
"""Most bytes of samples one compressed byte may claim: real latencies compress about 1.3x,
so a blob that claims far more is refused before it is inflated."""
SAMPLE_SLACK = 65_536
LAYER_FIELDS = frozenset(field.name for field in fields(LayerProfile))
BATCH = 32
"""Runs a worker prepares per task (fewer round trips)."""
AHEAD = 3
"""Tasks in flight per worker: memory holds this many batches of runs, not the export."""

SAMPLES_DOC = schema.record(
    {
        "dtype": schema.choice(("float32",)),
        "codec": schema.choice((SAMPLES_CODEC,)),
        "count": schema.integer(0, MAX_SAMPLES),
        "data": schema.text(MAX_IMPORT_BYTES),
    },
    required=("dtype", "codec", "count", "data"),
)


class Ready(NamedTuple):
    """A run prepared, and the bytes of samples it claims from how many encoded bytes."""

    prepared: Prepared
    claimed: int
    encoded: int
    where: str
    """Its place in the export, for errors."""


class Line(NamedTuple):
    """A run's line of an export, not decoded yet (a worker decodes it)."""

    raw: bytes
    number: int
    where: str
    project: str
    source: str


def refused(claimed: int, encoded: int, count: int, where: str) -> schema.SchemaError | None:
    """The error of samples that claim much more than their data can hold, else None."""
    if claimed <= SAMPLE_RATIO * encoded + SAMPLE_SLACK:
        return None
    return schema.SchemaError(
        f"{where}: {count} samples ({claimed / 1e6:.1f} MB) cannot come from"
        f" {encoded / 1e3:.1f} kB of data; refused before inflating"
    )


def ready_run(data: Any, where: str, project: str) -> Ready:
    """The export's run `data` of `project` checked (InputError naming the first bad field)
    and prepared; its samples refused before inflating if they claim too much."""
    checked = schema.run(data, where)
    samples = checked.get("latency_samples")
    claimed = encoded = 0
    at = f"{where}.latency_samples"
    if samples is not None:
        samples = SAMPLES_DOC(samples, at)
        claimed, encoded = samples["count"] * 4, len(samples["data"]) * 3 // 4
        error = refused(claimed, encoded, samples["count"], at)
        if error is not None:
            raise error
        try:
            samples = samples_blob_from_document(samples)
        except ValueError as exc:
            raise InputError(f"{at}: {exc}") from None
    run_id = checked.get("id") or uuid.uuid4().hex
    run = RunResult.from_dict({**checked, "id": run_id, "project": project, "layers": None})
    try:
        prepared = prepare(run, samples, layer_rows(checked.get("layers")))
    except ValueError as exc:  # a profile larger than a stored one may be
        raise InputError(f"{where}.layers: {exc}") from None
    return Ready(prepared, claimed, encoded, where)


def layer_rows(rows: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """A checked profile's rows as stored: a row with fields besides a `LayerProfile`'s
    (free-form in an export) keeps the record's fields alone."""
    if rows is None or all(row.keys() <= LAYER_FIELDS for row in rows):
        return rows
    return [{k: v for k, v in row.items() if k in LAYER_FIELDS} for row in rows]


def ready_lines(lines: list[Line]) -> list[Ready]:
    """A worker's task: runs' lines decoded and prepared."""
    decoder = schema.decoder()
    return [
        ready_run(
            one_record(decoder, text(line.raw, line.source), line.number, line.source),
            line.where,
            line.project,
        )
        for line in lines
    ]


def _worker_start(parent: int) -> None:
    """A worker leaves Ctrl-C to the import (which stops it) and dies with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ[PARENT_ENV] = str(parent)
    die_with_parent()


class Workers:
    """`count` worker processes preparing batches of runs' lines."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.pool = ProcessPoolExecutor(
            count,
            mp_context=get_context("spawn"),
            initializer=_worker_start,
            initargs=(os.getpid(),),
        )

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def submit(self, lines: list[Line]) -> Future[list[Ready]]:
        return self.pool.submit(ready_lines, lines)


Item = Any
"""What `ordered` passes through: a record, or a Future of a batch of prepared runs."""


def ordered(items: Iterable[Item], ahead: int) -> Iterator[Any]:
    """The items in order, each Future replaced by the runs it prepared; at most `ahead`
    Futures pending (a worker's error is raised where its batch comes)."""
    pending: deque[Item] = deque()
    waiting = 0

    def take() -> Iterator[Any]:
        nonlocal waiting
        item = pending.popleft()
        if isinstance(item, Future):
            waiting -= 1
            try:
                yield from item.result()
            except BrokenProcessPool:
                raise StoreError(
                    "import stopped: a worker process ended unexpectedly (killed, or out of"
                    " memory); nothing was stored"
                ) from None
        else:
            yield item

    for item in items:
        pending.append(item)
        waiting += isinstance(item, Future)
        while waiting > ahead:
            yield from take()
    while pending:
        yield from take()


def batched(events: Iterable[Any], workers: Workers) -> Iterator[Item]:
    """The events with consecutive Lines gathered into batches given to the workers."""
    batch: list[Line] = []
    for event in events:
        if isinstance(event, Line):
            batch.append(event)
            if len(batch) == BATCH:
                yield workers.submit(batch)
                batch = []
            continue
        if batch:
            yield workers.submit(batch)
            batch = []
        yield event
    if batch:
        yield workers.submit(batch)
