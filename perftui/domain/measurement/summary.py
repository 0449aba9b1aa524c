"""Per-project figures derived from stored runs (counts, the best configuration's throughput
and latency), and the project's runtime precision, both kept up to date by the store on every
write from the runs it adds and the configurations they belong to alone."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, final

from perftui.domain.model.profile import precision_counts, runtime_precision
from perftui.domain.records import RunConfig, RunResult

if TYPE_CHECKING:
    from perftui.domain.measurement.figures import Figures

NO_PRECISION = "—"
"""What `runtime_precision` says when no run tells a precision."""


@dataclass(frozen=True)
class ProjectSummary:
    """A project's counts and headlines: the best configuration's combined figures (all the
    runs of one configuration in one benchmark, repetitions combined as
    domain.measurement.figures.group_runs combines them), never one lucky run's."""

    runs: int
    ok_runs: int
    best_throughput_fps: float | None
    """The highest combined throughput of a configuration."""
    best_latency_ms: float | None
    """The lowest combined median latency of a configuration."""
    last_run_at: str | None
    best_throughput_config: str | None = None
    """The `config_key` of the configuration the best throughput is of."""
    best_latency_config: str | None = None
    """The `config_key` of the configuration the best latency is of."""


@final  # always true, so `headline and headline.figures` types as the figures or None
@dataclass(frozen=True)
class Headline:
    """A configuration's combined figures, as the projects list shows a project's best."""

    config: RunConfig
    runs: int
    """How many runs (repetitions) the figures combine."""
    figures: Figures


Headlines = Mapping[str, Sequence[float | None]]
"""Configuration key -> [combined throughput, combined median latency] (None without a
successful run)."""


def config_key(run: RunResult) -> str:
    """What groups a run with its repetitions: its benchmark and its configuration."""
    config = json.dumps(run.config.to_dict(), sort_keys=True, default=str)
    return f"{run.benchmark_id}/{hashlib.sha256(config.encode()).hexdigest()[:16]}"


def benchmark_of(key: str) -> str:
    """The benchmark id a `config_key` names."""
    return key.rpartition("/")[0]


def summarize(runs: Sequence[RunResult], headlines: Headlines | None = None) -> ProjectSummary:
    """The runs' counts, and the best of the configurations' `headlines` (none: no best)."""
    ok = [r for r in runs if r.status == "ok" and r.latency_ms is not None]
    summary = ProjectSummary(
        runs=len(runs),
        ok_runs=len(ok),
        best_throughput_fps=None,
        best_latency_ms=None,
        last_run_at=max((r.started_at for r in runs if r.started_at), default=None),
    )
    return with_best(summary, headlines or {})


def with_best(summary: ProjectSummary, headlines: Headlines) -> ProjectSummary:
    """`summary` whose headlines are the best of the configurations' (ties: the first key in
    sorted order)."""
    keys = sorted(headlines)
    fps = [(v, k) for k in keys if (v := headlines[k][0]) is not None]
    ms = [(v, k) for k in keys if (v := headlines[k][1]) is not None]
    fastest = max(fps, key=lambda item: item[0], default=(None, None))
    quickest = min(ms, key=lambda item: item[0], default=(None, None))
    return replace(
        summary,
        best_throughput_fps=fastest[0],
        best_throughput_config=fastest[1],
        best_latency_ms=quickest[0],
        best_latency_config=quickest[1],
    )


def extend(
    summary: ProjectSummary,
    added: Sequence[RunResult],
    headlines: Headlines,
    changed: Collection[str] | None = None,
) -> ProjectSummary:
    """`summary` with the runs `added` since it was made and every configuration's
    `headlines` as they now are: `summarize` of all the runs, reading only the new ones. With
    `changed`, the configurations whose headlines differ from those `summary` was made
    from, only they and its best ones are looked at for the best."""
    new = summarize(added)
    result = replace(
        summary,
        runs=summary.runs + new.runs,
        ok_runs=summary.ok_runs + new.ok_runs,
        last_run_at=max(filter(None, (summary.last_run_at, new.last_run_at)), default=None),
    )
    return with_best(result, headlines if changed is None else _rivals(summary, headlines, changed))


def _rivals(summary: ProjectSummary, headlines: Headlines, changed: Collection[str]) -> Headlines:
    """The headlines that may hold the best when only the `changed` ones differ from those
    `summary` was made from: those and its best ones, unless a best one changed. Any other
    is no better than a best one, and a tie goes to the first key, which the best one is."""
    bests = (summary.best_throughput_config, summary.best_latency_config)
    best = {key for key in bests if key is not None}
    if not best.isdisjoint(changed):
        return headlines
    return {key: headlines[key] for key in {*changed, *best} if key in headlines}


Mark = tuple[str, str | None]
"""(started_at of a run, what it says of the precision: None for nothing)."""


@dataclass(frozen=True)
class PrecisionSource:
    """What `runtime_precision` reads of a project's runs, kept so that new runs update it
    alone: the newest run with a layer profile, which wins when its profile names a
    precision, and the newest run whose engine reported one."""

    profile: Mark | None = None
    engine: Mark | None = None

    @property
    def text(self) -> str:
        """`runtime_precision` of the project's runs."""
        if self.profile is not None and self.profile[1]:
            return self.profile[1]
        return self.engine[1] if self.engine is not None and self.engine[1] else NO_PRECISION

    def extend(self, added: Sequence[RunResult]) -> PrecisionSource:
        """With the runs `added` since (a tie in start time goes to the run added later).
        Only the newest added run with layers needs them: the others may come without."""
        profile, engine = self.profile, self.engine
        for run in added:
            at = run.started_at or ""
            if run.layers and (profile is None or at >= profile[0]):
                counts = precision_counts(run.layers)
                named = any(p != "?" for p in counts)
                profile = (at, runtime_precision([run]) if named else None)
            said = runtime_precision([run if run.layers is None else replace(run, layers=None)])
            if said != NO_PRECISION and (engine is None or at >= engine[0]):
                engine = (at, said)
        return PrecisionSource(profile, engine)

    def to_dict(self) -> dict[str, list[str | None] | None]:
        return {
            "profile": list(self.profile) if self.profile else None,
            "engine": list(self.engine) if self.engine else None,
        }

    @classmethod
    def from_dict(cls, doc: dict) -> PrecisionSource:
        """ValueError if `doc` is not what `to_dict` makes."""
        marks: list[Mark | None] = []
        for key in ("profile", "engine"):
            mark = doc[key]
            if mark is None:
                marks.append(None)
                continue
            at, text = mark
            if not isinstance(at, str) or not (text is None or isinstance(text, str)):
                raise ValueError(f"precision mark {mark!r} is not [time, text]")
            marks.append((at, text))
        return cls(*marks)
