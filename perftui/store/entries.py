"""A project's entry in the ``shards`` table, ``{"project", "file", "tail", "count",
"figures"}``, and the figures file it names, so the projects list and the home screen read
the main document and one small file per project alone.

``file`` and ``tail`` name the project's shard files (perftui.store.shards): its file and the
segments of runs appended since, read as one; ``count`` counts its runs (their ids are in the
shard files alone, so the document's size does not grow with them).

The figures file is ``{"summary", "precision", "precision_source", "headlines", "best"}``:
``headlines`` maps each configuration's key (domain.measurement.summary.config_key) to
[combined throughput, combined median latency], as one JSON string (a reader of the summary
skips it whole), so the projects list shows a configuration's figure exactly as the runs
table does (domain.measurement.figures.group_runs); ``best`` keeps the stored figures
(perftui.store.figure_docs) of the one or two configurations the summary names. A write that
only adds runs extends them, combining again only the configurations the runs belong to
(parsing only the lines of the project's files that name their benchmarks); any other write
computes them from the project's runs, as a reader does for figures another version wrote.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import StoreError
from perftui.domain.measurement.summary import (
    PrecisionSource,
    ProjectSummary,
    benchmark_of,
    config_key,
    extend,
    summarize,
)
from perftui.domain.records import RunResult
from perftui.store.codec import plain
from perftui.store.figure_docs import METHOD, encoded, figures_from_doc
from perftui.store.names import checked_file, checked_files, read_nofollow
from perftui.store.shards import Shard

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures
    from perftui.store.snapshot import Snapshot

__all__ = [
    "ProjectFigures",
    "appended_figures",
    "best_docs",
    "combined",
    "computed",
    "figures_of",
    "files_of",
    "headline_doc",
    "mentioned",
    "named_by",
    "project_figures",
    "read_figures",
    "run_count",
    "shard_doc",
    "shard_key",
    "stored_best",
    "stored_summary",
]

Heads = dict[str, list[float | None]]
"""Configuration key -> [combined throughput, median latency]."""

SUMMARY_FIELDS = {f.name for f in fields(ProjectSummary)}


def read_figures(folder: Path, name: str) -> dict[str, Any] | None:
    """A project's figures file; None if it is missing or unreadable (the figures are then
    computed from the project's runs)."""
    try:
        found = json.loads(read_nofollow(folder / checked_file(name)))
    except (OSError, ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


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


def mentioned(entries: Iterable[dict[str, Any]]) -> set[tuple[str, str]]:
    """The (folder, name) of every file the entries name, their names unchecked: only ever
    taken away from a set of checked ones (perftui.store.recovery.retire)."""
    found: set[tuple[str, str]] = set()
    for entry in entries:
        tail = entry.get("tail")
        for name in (entry.get("file"), *(tail if isinstance(tail, list) else ())):
            if isinstance(name, str):
                found.add(("runs", name))
        if isinstance(entry.get("figures"), str):
            found.add(("figures", entry["figures"]))
    return found


def _checked(entry: dict[str, Any]) -> tuple[tuple[str, ...], frozenset[tuple[str, str]]]:
    known = _CHECKED.get(id(entry))
    if known is not None and known[0] is entry:
        return known[1]
    tail = entry.get("tail", [])
    if not isinstance(tail, list) or not all(isinstance(name, str) for name in tail):
        raise ValueError("the appended segments are not a list of file names")
    figures = entry.get("figures")
    files = checked_files((entry["file"], *tail))
    named = {("runs", name) for name in files}
    if figures is not None:
        named.add(("figures", checked_files((figures,))[0]))
    found = (files, frozenset(named))
    if len(_CHECKED) > 4096:
        _CHECKED.clear()
    _CHECKED[id(entry)] = (entry, found)
    return found


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
    """What a project's figures file keeps."""

    summary: ProjectSummary
    source: PrecisionSource
    headlines: Heads
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


def combined(
    snap: Snapshot,
    shard: Shard,
    runs: Sequence[RunResult],
    fresh: dict[str, dict[str, Any]] | None = None,
) -> tuple[Heads, dict[str, Any]]:
    """The configurations of `runs` (read from `shard`, or added by this write with their
    figures in `fresh`) combined as the runs table combines them: their headlines, and their
    stored figures by key."""
    from perftui.domain.measurement.figures import group_runs

    fresh = fresh or {}

    def known(run: RunResult) -> Figures | None:
        doc = fresh.get(run.id) or shard.figures.get(run.id)
        if doc is not None:
            with contextlib.suppress(KeyError, TypeError, ValueError):
                return figures_from_doc(doc)
        return None

    def samples(run: RunResult) -> np.ndarray | None:
        try:  # a damaged samples file does not stop the write
            return snap.payload(shard, "samples", run.id) if run.id in shard.runs else None
        except StoreError:
            return None

    heads: Heads = {}
    docs: dict[str, Any] = {}
    for group in group_runs(runs, samples, known):
        key = config_key(group.runs[0])
        fps = group.figures.throughput_fps if group.ok_runs else None
        heads[key] = [fps, group.latency_ms("median")]
        docs[key] = {
            "config": group.config.to_dict(),
            "runs": len(group.runs),
            "figures": encoded(group.figures),
        }
    return heads, docs


def _members(snap: Snapshot, project: str, keys: Collection[str]) -> tuple[Shard, list[RunResult]]:
    """The stored runs of these configurations and the shard part that holds them."""
    part = snap.benchmark_runs(project, {benchmark_of(key) for key in keys})
    runs = [snap.record(part, run_id, with_layers=False) for run_id in part.runs]
    return part, [run for run in runs if config_key(run) in keys]


def headline_doc(snap: Snapshot, project: str, key: str) -> dict[str, Any] | None:
    """A configuration's stored figures combined from its stored runs (None without any)."""
    part, runs = _members(snap, project, {key})
    return combined(snap, part, runs)[1].get(key)


def best_docs(
    snap: Snapshot, project: str, summary: ProjectSummary, *known: dict[str, Any]
) -> dict[str, Any]:
    """{"method", "configs": key -> stored figures} of the summary's best configurations:
    from the first of `known` that holds one, else combined from the stored runs."""
    docs = {}
    for key in filter(None, {summary.best_throughput_config, summary.best_latency_config}):
        doc = next((k[key] for k in known if key in k), None) or headline_doc(snap, project, key)
        if doc is not None:
            docs[key] = doc
    return {"method": METHOD, "configs": docs}


def appended_figures(
    snap: Snapshot, project: str, added: Sequence[RunResult], fresh: dict[str, dict[str, Any]]
) -> ProjectFigures | None:
    """The project's stored figures with the runs `added` (their figures `fresh`), reading
    only the stored runs of the configurations they belong to; None when the stored figures
    are none this version can extend."""
    stored = _stored(snap.entry_figures(project))
    if stored is None:
        return None
    keys = {config_key(run) for run in added} & set(stored.headlines)
    part, runs = _members(snap, project, keys) if keys else (Shard(), [])
    ids = {run.id for run in added}
    heads, docs = combined(snap, part, [r for r in runs if r.id not in ids] + list(added), fresh)
    changed = set(heads)
    heads = {**stored.headlines, **heads}
    summary = extend(stored.summary, added, heads, changed)
    best = best_docs(snap, project, summary, docs, stored.best.get("configs") or {})
    return ProjectFigures(summary, stored.source.extend(added), heads, best)


def project_figures(
    snap: Snapshot, project: str, shard: Shard, appended: Sequence[RunResult]
) -> ProjectFigures:
    """The figures of `shard`, the project's runs as a write leaves them, computed from them
    (from the write's own records when they are all the project's runs)."""
    mine = project not in snap.entries and len(appended) == len(shard.runs)
    return computed(snap, project, shard, appended if mine else None)


def computed(
    snap: Snapshot, project: str, shard: Shard, runs: Sequence[RunResult] | None = None
) -> ProjectFigures:
    """The figures of the project's runs `shard`, computed from them (decoding the newest
    profile alone), or from `runs`, its runs as records (the newest profiled with layers)."""
    if runs is None:
        at = {i: doc.get("started_at") or "" for i, doc in shard.runs.items()}
        newest = None
        for run_id in shard.runs:  # the newest profiled; a tie goes to the one stored later
            layers = shard.refs["layers"].get(run_id)
            if layers is not None and layers.count and (newest is None or at[run_id] >= at[newest]):
                newest = run_id
        runs = [snap.record(shard, i, with_layers=i == newest) for i in shard.runs]
    heads, docs = combined(snap, shard, runs)
    summary = summarize(runs, heads)
    best = best_docs(snap, project, summary, docs)
    return ProjectFigures(summary, PrecisionSource().extend(runs), heads, best)


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
