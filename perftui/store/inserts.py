"""Runs added by a write, in two steps: `prepare` (no files: a run's document, its payloads
encoded and its figures computed, once; an import does it in worker processes) and
`insert_runs` (the write: checked against what is stored, payloads appended to the
project's pack as they come: perftui.store.transaction)."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import InputError
from perftui.domain.records import LayerProfile, RunResult
from perftui.store.codec import SamplesBlob
from perftui.store.figure_docs import figures_doc
from perftui.store.layout import now_iso, run_doc
from perftui.store.names import RUN_ID
from perftui.store.payloads import encode

if TYPE_CHECKING:
    import numpy as np

    from perftui.store.transaction import Transaction

    Samples = np.ndarray | SamplesBlob | None
    """A run's latency samples: an array, or a blob stored as it is (an import)."""

__all__ = ["Prepared", "insert_runs", "prepare", "unknown_project", "with_id"]


@dataclass(frozen=True)
class Prepared:
    """A run as a write stores it."""

    run: RunResult
    """The run, with its id and start time, without its layers (read back from its pack
    when the project's precision needs them)."""
    doc: dict[str, Any]
    environment: dict[str, Any] | None
    """Its environment's document (kept once per environment), or None."""
    blobs: list[tuple[str, bytes, int]]
    """Its payloads: (kind, blob, count)."""
    figures: dict[str, Any]


def with_id(run: RunResult) -> RunResult:
    """The run as it will be stored: its project checked, an id and start time assigned."""
    if not run.project:
        raise InputError("a run must name its project before it is stored")
    for what, value in (("run id", run.id), ("benchmark id", run.benchmark_id)):
        if not isinstance(value, str) or (value and RUN_ID.fullmatch(value) is None):
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise InputError(f"a {what} is 1-64 letters, digits, '_' or '-', not {shown}")
    if run.id and run.started_at:
        return run
    return replace(run, id=run.id or uuid.uuid4().hex, started_at=run.started_at or now_iso())


def prepare(
    run: RunResult, samples: Samples, layers: list[dict[str, Any]] | None = None
) -> Prepared:
    """The run as it will be stored (`with_id`), its payloads encoded and its figures
    computed. An import gives its profile as the checked rows `layers` (stored as they
    come, never made records), the run none."""
    run = with_id(run)
    array = samples.array() if isinstance(samples, SamplesBlob) else samples
    doc, environment = run_doc(run)
    judged = run  # its verdict weighs its profile, however it came
    if run.layers is not None:
        layers = [layer.to_dict() for layer in run.layers]
    elif layers is not None:
        judged = replace(run, layers=tuple(map(LayerProfile.from_dict, layers)))
    blobs = encode(layers, samples)
    figures = figures_doc(judged, array)
    return Prepared(
        replace(run, layers=None) if run.layers else run, doc, environment, blobs, figures
    )


def unknown_project(name: str) -> InputError:
    return InputError(f"no project named '{name}'; create it before storing runs")


def insert_runs(
    tx: Transaction,
    prepared: Iterable[Prepared],
    *,
    skip_existing: bool,
    fresh: Collection[str] = (),
) -> int:
    """Insert runs with their payloads; a run of an unknown project is an InputError. Runs
    whose ids are `fresh` (just made by `with_id`) are not looked for among the stored
    ones, which could read every project."""
    projects = tx.table("projects")
    environments = {doc["id"] for doc in tx.table("environments").all()}
    new_environments = []
    added = 0
    for item in prepared:
        run = item.run
        if projects.get(run.project) is None:  # or added since, by the caller (an import)
            raise unknown_project(run.project)
        if run.id not in fresh and tx.known(run.id):
            if skip_existing:
                continue
            raise InputError(f"run {run.id} is already stored")
        tx.added.add(run.id)
        env = item.environment
        if env is not None and env["id"] not in environments:
            environments.add(env["id"])
            new_environments.append(env)
        refs = tx.store_payloads(run.project, item.blobs)
        tx.add(run, (item.doc, refs, item.figures))
        added += 1
    if new_environments:
        tx.table("environments").insert(new_environments)
    return added
