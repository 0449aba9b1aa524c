"""A project's combined figures, so the projects list and the home screen read its document in
the index alone:

    {"method", "summary", "source", "heads": {config key: [throughput, median latency]},
     "best": {config key: {"config", "runs", "figures"}}}

(the index keeps all but `heads`, which can be many: they are in the project's folder).

`heads` are each configuration's combined figures (domain.measurement.figures.group_runs),
None for a configuration at a rate (open loop: its throughput is the rate it was offered, its
latency counts queueing, so it is never a project's best; before rates every configuration
was closed-loop, so older documents read the same), `best` the stored figures
(perftui.store.figure_docs) of the one or two configurations the summary names. A write that
adds runs combines again only the configurations they belong to (`extended`); other writes,
and figures another method stored, are computed from all the project's runs (`computed`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, fields
from typing import TYPE_CHECKING, Any

from perftui.domain.measurement.summary import (
    PrecisionSource,
    ProjectSummary,
    config_key,
    extend,
    summarize,
)
from perftui.domain.records import RunResult
from perftui.store.codec import plain
from perftui.store.figure_docs import METHOD, encoded, figures_from_doc

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures

    Known = dict[str, dict[str, Any]]
    """Run id -> its stored figures."""
    SamplesOf = Callable[[RunResult], np.ndarray | None]

__all__ = ["combined", "computed", "extended", "stored_summary"]

SUMMARY_FIELDS = {f.name for f in fields(ProjectSummary)}


def combined(
    runs: Sequence[RunResult], known: Known, samples: SamplesOf
) -> tuple[dict[str, list[float | None]], dict[str, Any]]:
    """The configurations of `runs` combined as the runs table combines them: their heads,
    and their stored figures by key."""
    from perftui.domain.measurement.figures import group_runs

    def stored(run: RunResult) -> Figures | None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            return figures_from_doc(known[run.id])
        return None

    heads, docs = {}, {}
    for group in group_runs(runs, samples, stored):
        key = config_key(group.runs[0])
        ranked = bool(group.ok_runs) and group.config.rate is None
        fps = group.figures.throughput_fps if ranked else None
        heads[key] = [fps, group.latency_ms("median") if ranked else None]
        docs[key] = {
            "config": group.config.to_dict(),
            "runs": len(group.runs),
            "figures": encoded(group.figures),
        }
    return heads, docs


def _doc(
    summary: ProjectSummary, source: PrecisionSource, heads: dict[str, Any], best: dict[str, Any]
) -> dict[str, Any]:
    keys = {summary.best_throughput_config, summary.best_latency_config} - {None}
    return {
        "method": METHOD,
        "summary": plain(asdict(summary)),
        "source": source.to_dict(),
        "heads": heads,
        "best": {key: best[key] for key in keys if key in best},
    }


def computed(runs: Sequence[RunResult], known: Known, samples: SamplesOf) -> dict[str, Any]:
    """The figures of a project's runs (the newest profiled one with its layers)."""
    heads, docs = combined(runs, known, samples)
    return _doc(summarize(runs, heads), PrecisionSource().extend(runs), heads, docs)


def extended(
    stored: dict[str, Any] | None,
    added: Sequence[RunResult],
    members: Sequence[RunResult],
    known: Known,
    samples: SamplesOf,
) -> dict[str, Any] | None:
    """The `stored` figures with the runs `added`; `members` are the stored runs of the
    configurations they belong to. None when the stored figures are none this method wrote."""
    if stored is None or (summed := stored_summary(stored)) is None:
        return None
    try:
        source = PrecisionSource.from_dict(stored["source"])
        old_heads = dict(stored["heads"])
    except (KeyError, TypeError, ValueError):
        return None
    keys = {config_key(run) for run in added}
    heads, docs = combined([*members, *added], known, samples)
    heads = {key: value for key, value in heads.items() if key in keys}
    summary = extend(summed[0], added, {**old_heads, **heads}, set(heads))
    return _doc(summary, source.extend(added), {**old_heads, **heads}, {**stored["best"], **docs})


def stored_summary(doc: dict[str, Any] | None) -> tuple[ProjectSummary, str] | None:
    """The summary and precision text of stored figures; None when this method did not
    store them (they are then computed from the runs)."""
    if not isinstance(doc, dict) or doc.get("method") != METHOD:
        return None
    summary = doc.get("summary")
    if not isinstance(summary, dict) or set(summary) != SUMMARY_FIELDS:
        return None
    try:
        return ProjectSummary(**summary), PrecisionSource.from_dict(doc["source"]).text
    except (KeyError, TypeError, ValueError):
        return None
