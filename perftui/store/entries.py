"""A project's entry in the ``shards`` table: which files hold its runs and its figures
(summary and runtime precision) kept up to date by every write, so the projects list and the
home screen read the main document and one small file per project alone.

An entry is ``{"project", "file", "tail", "count", "figures"}``: ``figures`` names the file of
its figures (perftui.store.entry_figures), ``{"summary", "precision", "precision_source",
"headlines", "best"}`` (perftui.store.headlines), which entries written before kept in
themselves. A write that only adds runs to a project extends the stored figures with the new
runs and the configurations they belong to (domain.measurement.summary), so appending costs
the same whatever the project's size; any other edit (a deleted run, a rename, a migration)
computes them from the project's runs. Figures a version with other figures wrote are read
by computing them from the runs, and written anew by the next write. A layout-3 entry (run
ids listed in ``runs``, no precision source) is read as it is until the migration writes it
anew (perftui.store.layout).

``file`` and ``tail`` name the project's shard files (perftui.store.shards): its file and the
segments of runs appended since, read as one.

The run ids are in the shard files alone (the entry counts them: ``count``), and the figures
in their files, so the document costs the same to read and write however many runs the
database holds; a run looked up by id is found in the projects already read, else in all of
them (perftui.store.snapshot).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from perftui.domain.measurement.summary import (
    PrecisionSource,
    ProjectSummary,
    extend,
    summarize,
)
from perftui.domain.records import RunResult
from perftui.store.codec import plain
from perftui.store.figure_docs import METHOD
from perftui.store.headlines import best_docs, combined, touched
from perftui.store.names import checked_files

if TYPE_CHECKING:
    from perftui.store.shards import Shard
    from perftui.store.snapshot import Snapshot

__all__ = [
    "ProjectFigures",
    "appended_figures",
    "computed",
    "figures_of",
    "files_of",
    "named_by",
    "project_figures",
    "run_count",
    "shard_doc",
    "shard_key",
    "stored_best",
    "stored_summary",
]

SUMMARY_FIELDS = {f.name for f in fields(ProjectSummary)}


def run_count(entry: dict[str, Any]) -> int:
    """How many runs the entry's project holds; ValueError if it does not say."""
    count = entry.get("count")
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        return count
    raise ValueError("the entry counts no runs")


def files_of(entry: dict[str, Any]) -> tuple[str, ...]:
    """The entry's shard files: the project's file, then the segments appended since;
    ValueError if the entry names them wrongly."""
    return _checked(entry)[0]


def named_by(entry: dict[str, Any]) -> frozenset[tuple[str, str]]:
    """The (folder, name) of the shard and figures files the entry names; ValueError if one
    is not a name of this database."""
    return _checked(entry)[1]


def _checked(entry: dict[str, Any]) -> tuple[tuple[str, ...], frozenset[tuple[str, str]]]:
    known = _CHECKED.get(id(entry))
    if known is not None and known[0] is entry:
        return known[1]
    tail = entry.get("tail", [])
    if not isinstance(tail, list) or not all(isinstance(name, str) for name in tail):
        raise ValueError("the appended segments are not a list of file names")
    figures = entry.get("figures")
    files = checked_files((entry["file"], *tail, *([] if figures is None else [figures])))
    if figures is not None:
        files = files[:-1]
    named = {("runs", name) for name in files}
    if figures is not None:
        named.add(("figures", figures))
    if len(_CHECKED) > 4096:
        _CHECKED.clear()
    _CHECKED[id(entry)] = (entry, (files, frozenset(named)))
    return files, frozenset(named)


_CHECKED: dict[int, tuple[dict[str, Any], tuple[tuple[str, ...], frozenset[tuple[str, str]]]]] = {}
"""Entry (by identity) -> its files, checked: a document's entries are never changed (a
write puts new ones in), and a write reads each one's files several times."""


def shard_key(entry: dict[str, Any]) -> str:
    """What a parsed shard is cached by: its files (a file never changes)."""
    return "+".join(files_of(entry))


def shard_doc(
    project: str,
    file: str,
    count: int,
    figures_file: str,
    tail: Sequence[str] = (),
) -> dict[str, Any]:
    return {
        "project": project,
        "file": file,
        "tail": list(tail),
        "count": count,
        "figures": figures_file,
    }


@dataclass(frozen=True)
class ProjectFigures:
    """What a project's figures file keeps (perftui.store.entry_figures)."""

    summary: ProjectSummary
    source: PrecisionSource
    headlines: dict[str, list[float | None]]
    """Configuration key -> [combined throughput, median latency] (perftui.store.headlines)."""
    best: dict[str, Any]
    """{"method", "configs": key -> stored figures} of the summary's best configurations."""

    def part(self) -> dict[str, Any]:
        return {
            "summary": plain(asdict(self.summary)),
            "precision": self.source.text,
            "precision_source": self.source.to_dict(),
            "headlines": json.dumps(self.headlines, separators=(",", ":")),
            "best": self.best,
        }


def stored_summary(part: dict[str, Any]) -> tuple[ProjectSummary, str] | None:
    """The summary and precision text of a project's figures file (`Snapshot.
    entry_figures`); None when a version with other figures wrote them."""
    stored = part.get("summary")
    if not isinstance(stored, dict) or set(stored) != SUMMARY_FIELDS:
        return None
    return ProjectSummary(**stored), str(part.get("precision"))


def stored_best(part: dict[str, Any]) -> dict[str, Any]:
    """Configuration key -> the stored figures of the project's best configurations, as
    stored by this method (perftui.store.figure_docs), else nothing."""
    best = part.get("best")
    if not isinstance(best, dict) or best.get("method") != METHOD:
        return {}
    configs = best.get("configs")
    return configs if isinstance(configs, dict) else {}


def _stored(part: dict[str, Any]) -> ProjectFigures | None:
    """The stored figures as this version keeps them and by this method (perftui.store.
    figure_docs); None otherwise (or malformed): a write then computes them all again."""
    figures, doc, best = stored_summary(part), part.get("precision_source"), part.get("best")
    try:  # a string: the projects list parses it whole, not as a value per configuration
        heads = json.loads(part["headlines"])
    except (KeyError, TypeError, ValueError, RecursionError):
        return None
    if figures is None or not isinstance(doc, dict) or not isinstance(heads, dict):
        return None
    if not isinstance(best, dict) or best.get("method") != METHOD:
        return None
    try:
        source = PrecisionSource.from_dict(doc)
    except (KeyError, TypeError, ValueError):
        return None
    return ProjectFigures(figures[0], source, heads, best)


def appended_figures(
    snap: Snapshot, project: str, added: Sequence[RunResult], fresh: dict[str, dict[str, Any]]
) -> ProjectFigures | None:
    """The project's stored figures with the runs `added` (their figures `fresh`), reading
    only the stored runs of the configurations they belong to; None when the stored figures
    are none this version can extend."""
    stored = _stored(snap.entry_figures(project))
    if stored is None:
        return None
    found = touched(snap, project, added, fresh, stored.headlines)
    heads = {**stored.headlines, **{key: pair for key, (pair, _) in found.items()}}
    summary = extend(stored.summary, added, heads)
    docs = {key: doc for key, (_, doc) in found.items()}
    best = best_docs(snap, project, _best_keys(summary), docs, stored.best.get("configs") or {})
    return ProjectFigures(summary, stored.source.extend(added), heads, best)


def project_figures(
    snap: Snapshot, project: str, shard: Shard, appended: Sequence[RunResult]
) -> ProjectFigures:
    """The figures of `shard`, the project's runs as a write leaves them: every
    configuration combined; the counts and precision extended with `appended` when that is
    all the write did, else computed afresh."""
    stored = None
    entry = snap.entries.get(project)
    if entry is not None and not shard.removed:
        with contextlib.suppress(ValueError):
            if run_count(entry) + len(appended) == len(shard.runs):
                stored = _stored(snap.entry_figures(project))
    if stored is None:  # the write's own records, when they are all the project's runs
        mine = entry is None and len(appended) == len(shard.runs)
        return computed(snap, project, shard, appended if mine else None)
    found = combined(snap, shard, [snap.record(shard, i, with_layers=False) for i in shard.runs])
    heads = {key: pair for key, (pair, _) in found.items()}
    summary = extend(stored.summary, appended, heads)
    best = best_docs(snap, project, _best_keys(summary), {k: doc for k, (_, doc) in found.items()})
    return ProjectFigures(summary, stored.source.extend(appended), heads, best)


def computed(
    snap: Snapshot, project: str, shard: Shard, runs: Sequence[RunResult] | None = None
) -> ProjectFigures:
    """The figures of the project's runs `shard`, computed from them (decoding the newest
    profile alone), or from `runs`, its runs as records (the newest profiled with layers)."""
    if runs is None:
        at = {i: doc.get("started_at") or "" for i, doc in shard.runs.items()}
        newest = None
        for run_id in shard.runs:  # the newest profiled; a tie goes to the one stored later
            if run_id in shard.refs["layers"] and (newest is None or at[run_id] >= at[newest]):
                newest = run_id
        runs = [snap.record(shard, i, with_layers=i == newest) for i in shard.runs]
    source = PrecisionSource().extend(runs)
    found = combined(snap, shard, runs)
    heads = {key: pair for key, (pair, _) in found.items()}
    summary = summarize(runs, heads)
    best = best_docs(snap, project, _best_keys(summary), {k: doc for k, (_, doc) in found.items()})
    return ProjectFigures(summary, source, heads, best)


def figures_of(snap: Snapshot, project: str) -> tuple[ProjectSummary, str] | None:
    """A project's summary and precision as stored (computed for an older layout, or for
    figures a version with other figures wrote); None without runs."""
    entry = snap.entries.get(project)
    if entry is not None and not snap.run_count(project):
        return None
    stored = None if entry is None else stored_summary(snap.entry_figures(project))
    if stored is not None:
        return stored
    shard = snap.shard(project)
    if shard is None or not shard.runs:
        return None
    found = computed(snap, project, shard)
    return found.summary, found.source.text


def _best_keys(summary: ProjectSummary) -> set[str | None]:
    return {summary.best_throughput_config, summary.best_latency_config}
