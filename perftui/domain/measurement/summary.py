"""Per-project figures derived from stored runs (best throughput, best latency, ...), and the
project's runtime precision, both computable from the runs added since they were last
computed: the store keeps them up to date on every write without reading the older runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from perftui.domain.model.profile import precision_counts, runtime_precision
from perftui.domain.records import RunResult

NO_PRECISION = "—"
"""What `runtime_precision` says when no run tells a precision."""


@dataclass(frozen=True)
class ProjectSummary:
    runs: int
    ok_runs: int
    best_throughput_fps: float | None
    best_latency_ms: float | None
    """Lowest median latency among successful runs."""
    last_run_at: str | None
    best_throughput_run: str | None = None
    """The id of the run the best throughput came from (its verdict goes with the figure)."""
    best_latency_run: str | None = None
    """The id of the run the best latency came from."""


def summarize(runs: Sequence[RunResult]) -> ProjectSummary:
    ok = [r for r in runs if r.status == "ok" and r.latency_ms is not None]
    fastest = max(ok, key=lambda r: r.throughput_fps, default=None)
    quickest = min(ok, key=lambda r: r.latency_ms.median if r.latency_ms else 0.0, default=None)
    return ProjectSummary(
        runs=len(runs),
        ok_runs=len(ok),
        best_throughput_fps=fastest.throughput_fps if fastest else None,
        best_latency_ms=quickest.latency_ms.median if quickest and quickest.latency_ms else None,
        last_run_at=max((r.started_at for r in runs if r.started_at), default=None),
        best_throughput_run=fastest.id if fastest else None,
        best_latency_run=quickest.id if quickest else None,
    )


def extend(summary: ProjectSummary, added: Sequence[RunResult]) -> ProjectSummary:
    """`summary` with the runs `added` since it was made: `summarize` of all the runs, but
    reading only the new ones (a tie for best goes to the run added later)."""
    new = summarize(added)
    result = replace(
        summary,
        runs=summary.runs + new.runs,
        ok_runs=summary.ok_runs + new.ok_runs,
        last_run_at=max(filter(None, (summary.last_run_at, new.last_run_at)), default=None),
    )
    old_fps, new_fps = summary.best_throughput_fps, new.best_throughput_fps
    if new_fps is not None and (old_fps is None or new_fps >= old_fps):
        result = replace(
            result, best_throughput_fps=new_fps, best_throughput_run=new.best_throughput_run
        )
    old_ms, new_ms = summary.best_latency_ms, new.best_latency_ms
    if new_ms is not None and (old_ms is None or new_ms <= old_ms):
        result = replace(result, best_latency_ms=new_ms, best_latency_run=new.best_latency_run)
    return result


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
            said = runtime_precision([replace(run, layers=None)])
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
        marks = []
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
