"""Runs added by a write: checked, given an id, their payloads encoded and written to their
project's pack as they come (perftui.store.transaction) and their figures computed once, as
they are stored."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from perftui.domain.errors import InputError
from perftui.domain.records import RunResult
from perftui.store.codec import SamplesBlob, SamplesDocument
from perftui.store.figure_docs import figures_doc
from perftui.store.layout import now_iso, run_doc
from perftui.store.payloads import encode

if TYPE_CHECKING:
    import numpy as np

    from perftui.store.transaction import Transaction

    Samples = np.ndarray | SamplesBlob | SamplesDocument | None
    """A run's latency samples: an array, or a blob stored as it is (an import)."""

__all__ = ["insert_runs", "prepare_run"]


def prepare_run(run: RunResult, samples: Samples) -> tuple[RunResult, Samples]:
    """The run as it will be stored: its project checked, an id and start time assigned."""
    if not run.project:
        raise InputError("a run must name its project before it is stored")
    if run.id and run.started_at:
        return run, samples
    stored = replace(run, id=run.id or uuid.uuid4().hex, started_at=run.started_at or now_iso())
    return stored, samples


def insert_runs(
    tx: Transaction,
    prepared: Iterable[tuple[RunResult, Samples]],
    *,
    skip_existing: bool,
    missing_project_ok: bool = False,
    fresh: Collection[str] = (),
) -> int:
    """Insert runs with their payloads; a run of an unknown project is an InputError, or
    skipped with `missing_project_ok` (a parked run whose project was deleted since). Runs
    whose ids are `fresh` (just made by `prepare_run`) are not looked for among the stored
    ones, which could read every project."""
    projects = {doc["name"] for doc in tx.table("projects").all()}
    environments = {doc["id"] for doc in tx.table("environments").all()}
    new_environments = []
    added = 0
    for run, samples in prepared:
        if run.project not in projects:  # or added since, by the caller (an import)
            projects = {doc["name"] for doc in tx.table("projects").all()}
        if run.project not in projects:
            if missing_project_ok:
                continue
            raise InputError(f"no project named '{run.project}'; create it before storing runs")
        if run.id not in fresh and tx.known(run.id):
            if skip_existing:
                continue
            raise InputError(f"run {run.id} is already stored")
        tx.added.add(run.id)
        doc, env = run_doc(run)
        if env is not None and env["id"] not in environments:
            environments.add(env["id"])
            new_environments.append(env)
        if isinstance(samples, SamplesDocument):
            samples = samples.load()
        refs = tx.store_payloads(run.project, encode(run.layers, samples))
        array = samples.array() if isinstance(samples, SamplesBlob) else samples
        tx.add(run, (doc, refs, figures_doc(run, array)))
        added += 1
    if new_environments:
        tx.table("environments").insert_multiple(new_environments)
    return added
