"""A project's entry in the ``shards`` table: which files hold its runs and its figures
(summary and runtime precision) kept up to date by every write, so the projects list and the
home screen read the main document and one small file per project alone.

An entry is ``{"project", "file", "tail", "count", "figures"}``: ``figures`` names the file of
its figures (perftui.store.entry_figures), ``{"summary", "precision", "precision_source",
"best_figures": {"method", "runs": {run id: figures}}}``, which entries written before kept
in themselves. A write that only adds runs to a project extends the stored figures with the
new runs (domain.measurement.summary), so appending costs the same whatever the project's size;
any other edit (a deleted run, a rename, a migration) computes them from the project's runs.
The best runs' figures (perftui.store.run_figures) are computed when a run becomes a best
one. A layout-3 entry (run ids listed in ``runs``, no precision source or best figures) is
read as it is until the migration writes it anew (perftui.store.layout).

``file`` and ``tail`` name the project's shard files (perftui.store.shards): its file and the
segments of runs appended since, read as one.

The run ids are in the shard files alone (the entry counts them: ``count``), and the figures
in their files, so the document costs the same to read and write however many runs the
database holds; a run looked up by id is found in the projects already read, else in all of
them (perftui.store.snapshot).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, fields
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import StoreError
from perftui.domain.measurement.summary import PrecisionSource, ProjectSummary, extend
from perftui.domain.records import RunResult
from perftui.store.codec import plain
from perftui.store.names import checked_file
from perftui.store.run_figures import figures_doc, method

if TYPE_CHECKING:
    from perftui.store.shards import Shard
    from perftui.store.snapshot import Snapshot

__all__ = [
    "best_at_hand",
    "best_figures",
    "extended",
    "figures_part",
    "files_of",
    "project_figures",
    "run_count",
    "shard_doc",
    "shard_key",
    "stored_best",
    "stored_figures",
    "stored_source",
]

SUMMARY_FIELDS = {f.name for f in fields(ProjectSummary)}


def run_count(entry: dict[str, Any]) -> int:
    """How many runs the entry's project holds; ValueError if it does not say."""
    count = entry.get("count")
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        return count
    raise ValueError("the entry counts no runs")


def files_of(entry: dict[str, Any]) -> list[str]:
    """The entry's shard files: the project's file, then the segments appended since;
    ValueError if the entry names them wrongly."""
    tail = entry.get("tail", [])
    if not isinstance(tail, list) or not all(isinstance(name, str) for name in tail):
        raise ValueError("the appended segments are not a list of file names")
    return [checked_file(name) for name in (entry["file"], *tail)]


def shard_key(entry: dict[str, Any]) -> str:
    """What a parsed shard is cached by: its files (a file never changes)."""
    return "+".join(files_of(entry))


def shard_doc(
    project: str, file: str, count: int, figures_file: str, tail: Sequence[str] = ()
) -> dict[str, Any]:
    return {
        "project": project,
        "file": file,
        "tail": list(tail),
        "count": count,
        "figures": figures_file,
    }


def figures_part(
    figures: tuple[ProjectSummary, PrecisionSource], best: dict[str, Any]
) -> dict[str, Any]:
    """A project's figures as its figures file keeps them."""
    summary, source = figures
    return {
        "summary": plain(asdict(summary)),
        "precision": source.text,
        "precision_source": source.to_dict(),
        "best_figures": best,
    }


def stored_figures(part: dict[str, Any]) -> tuple[ProjectSummary, str] | None:
    """The summary and precision text of a project's stored figures (`Snapshot.
    entry_figures`); None when a version with other figures wrote them."""
    stored = part.get("summary")
    if not isinstance(stored, dict) or set(stored) != SUMMARY_FIELDS:
        return None
    return ProjectSummary(**stored), str(part.get("precision"))


def stored_source(part: dict[str, Any]) -> PrecisionSource | None:
    """The stored figures' precision source; None when they have none (or a malformed one)."""
    doc = part.get("precision_source")
    if not isinstance(doc, dict):
        return None
    try:
        return PrecisionSource.from_dict(doc)
    except (KeyError, TypeError, ValueError):
        return None


def stored_best(part: dict[str, Any]) -> dict[str, Any]:
    """Run id -> the figures of the project's best runs, as stored by this method
    (perftui.store.run_figures), else nothing."""
    best = part.get("best_figures")
    if not isinstance(best, dict) or best.get("method") != method():
        return {}
    runs = best.get("runs")
    return runs if isinstance(runs, dict) else {}


def extended(
    part: dict[str, Any], appended: Sequence[RunResult]
) -> tuple[ProjectSummary, PrecisionSource] | None:
    """The stored figures extended with runs added to the project; None when they are none
    this version can extend."""
    figures, source = stored_figures(part), stored_source(part)
    if figures is None or source is None:
        return None
    return extend(figures[0], appended), source.extend(appended)


def project_figures(
    snap: Snapshot, project: str, shard: Shard, appended: Sequence[RunResult]
) -> tuple[ProjectSummary, PrecisionSource]:
    """The figures of `shard`, the project's runs as a write leaves them: the stored ones
    extended with `appended` when that is all the write did, else computed afresh."""
    entry = snap.entries.get(project)
    if entry is not None:
        try:
            before = run_count(entry)
        except ValueError:
            before = -1
        only_added = not shard.removed and before + len(appended) == len(shard.runs)
        found = extended(snap.entry_figures(project), appended) if only_added else None
        if found is not None:
            return found
    return snap.figures(shard)


def _best_ids(summary: ProjectSummary) -> list[str]:
    return [i for i in (summary.best_throughput_run, summary.best_latency_run) if i]


def best_at_hand(
    part: dict[str, Any], summary: ProjectSummary, fresh: dict[str, dict[str, Any]]
) -> dict[str, Any] | None:
    """The best runs' stored figures from the runs a write adds (`fresh`) and the stored
    ones (`part`); None when one is in neither."""
    known = stored_best(part)
    runs = {}
    for run_id in _best_ids(summary):
        found = fresh.get(run_id) or known.get(run_id)
        if found is None:
            return None
        runs[run_id] = found
    return {"method": method(), "runs": runs}


def best_figures(
    snap: Snapshot, project: str, shard: Shard, summary: ProjectSummary
) -> dict[str, Any]:
    """The stored figures of the summary's best runs: as the shard keeps them, else kept from
    the entry when they were best before, else computed from the run and its samples."""
    known = stored_best(snap.entry_figures(project))
    runs = {}
    for run_id in _best_ids(summary):
        found = shard.figures.get(run_id) or known.get(run_id)
        if found is None:
            record = snap.record(shard, run_id, with_layers=False)
            try:
                samples = snap.latency_samples(run_id)
            except StoreError:  # a damaged samples file does not stop the write
                samples = None
            found = figures_doc(record, samples)
        runs[run_id] = found
    return {"method": method(), "runs": runs}
