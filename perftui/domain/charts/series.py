"""Chart series derived from stored runs: baseline, thread and batch scaling, throughput bars,
the model summary of a run, and the rolling series of a benchmark in progress.

Pure computation (no textual); the dashboard only draws what these functions return.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perftui.domain.records import RunConfig, RunResult
from perftui.domain.settings import BY_NAME, summary
from perftui.domain.settings import key as config_key


def threads_label(threads: int) -> str:
    """'auto' for the engine's default (0), else the count."""
    return "auto" if threads == 0 else str(threads)


def short_label(config: RunConfig) -> str:
    """A compact label for charts: the whole label (RunConfig.label) without the defaults a
    setting's `brief` names (a sync api, ...): 'b4 t2', 'b1 t:auto r2 async seq=64'."""
    return " ".join(
        text
        for key, text, quiet in config.parts()
        if not quiet and not (key in BY_NAME and text in BY_NAME[key].brief)
    )


def ok_runs(runs: Sequence[RunResult]) -> list[RunResult]:
    """Successful runs with latency statistics, in the given order."""
    return [r for r in runs if r.status == "ok" and r.latency_ms is not None]


def batches(runs: Sequence[RunResult]) -> list[int]:
    """Distinct batch sizes among successful runs, ascending."""
    return sorted({r.config.batch for r in ok_runs(runs)})


SCALED = ("batch", "threads")
"""The settings a scaling series runs along or holds fixed."""


def _rest_key(config: RunConfig) -> RunConfig:
    """The settings a scaling series holds fixed besides batch and threads, dims included
    (a series that mixed seq=32 and seq=64 would chart the shape, not the scaling)."""
    return config_key(config, without=SCALED)


def _settings(config: RunConfig) -> str:
    """The settings a series holds: its label but batch and threads, 's:auto r:auto sync
    seq=64'."""
    return " ".join(text for key, text, quiet in config.parts() if not quiet and key not in SCALED)


@dataclass(frozen=True)
class ScalingPoint:
    """One x value of a scaling series, from the newest successful run at that point."""

    x: int
    label: str
    throughput_fps: float
    latency_ms: float
    """Median latency."""
    run_id: str


@dataclass(frozen=True)
class Scaling:
    """Throughput and median latency along one axis with the other held fixed."""

    axis: str  # "threads" | "batch"
    fixed: str  # "batch" | "threads"
    fixed_value: int
    points: tuple[ScalingPoint, ...]
    settings: str
    """The other settings the points share, e.g. 's:auto r:auto sync'."""

    @property
    def title(self) -> str:
        fixed = (
            threads_label(self.fixed_value) if self.fixed == "threads" else str(self.fixed_value)
        )
        return f"{self.axis} scaling at {self.fixed} {fixed}"


def _series(runs: Sequence[RunResult], axis: str, fixed: str, value: int) -> Scaling:
    """The newest run per x value among `runs` (of one fixed value and settings)."""
    chosen: dict[int, RunResult] = {}
    for run in runs:
        x = getattr(run.config, axis)
        if x not in chosen or run.started_at > chosen[x].started_at:
            chosen[x] = run
    points = tuple(
        ScalingPoint(
            x=x,
            label=threads_label(x) if axis == "threads" else str(x),
            throughput_fps=run.throughput_fps,
            latency_ms=run.latency_ms.median if run.latency_ms else 0.0,
            run_id=run.id,
        )
        for x, run in sorted(chosen.items())
    )
    newest = max(runs, key=lambda r: r.started_at)
    return Scaling(axis, fixed, value, points, _settings(newest.config))


def scalings(runs: Sequence[RunResult], axis: str) -> list[Scaling]:
    """Every scaling series along `axis` ('threads' or 'batch'): one per value of the other
    of the two and per set of the other settings (dims included), so a sync/async or seq=32,64
    matrix shows each of its halves, none mixed or hidden. Ordered by the fixed value, then by
    settings."""
    fixed = "batch" if axis == "threads" else "threads"
    groups: dict[tuple[int, str, RunConfig], list[RunResult]] = {}
    for run in ok_runs(runs):
        key = (getattr(run.config, fixed), _settings(run.config), _rest_key(run.config))
        groups.setdefault(key, []).append(run)
    return [
        _series(group, axis, fixed, key[0])
        for key, group in sorted(groups.items(), key=lambda item: item[0][:2])
    ]


def baseline(runs: Sequence[RunResult], batch: int, threads: int) -> RunResult | None:
    """The newest successful run at (batch, threads), or None."""
    matching = [r for r in ok_runs(runs) if r.config.batch == batch and r.config.threads == threads]
    return max(matching, key=lambda r: r.started_at, default=None)


def latency_bars(run: RunResult) -> list[tuple[str, float]]:
    """The latency statistics of a run as (label, ms) bars, min to max."""
    s = run.latency_ms
    if s is None:
        return []
    bars = [
        ("min", s.min),
        ("median", s.median),
        ("mean", s.mean),
        ("p90", s.p90),
        ("p99", s.p99),
        ("max", s.max),
    ]
    return [(label, value) for label, value in bars if value is not None]


def bar_runs(runs: Sequence[RunResult], limit: int = 12) -> list[RunResult]:
    """The newest `limit` successful runs, oldest first: those `throughput_bars` draws."""
    return sorted(ok_runs(runs), key=lambda r: r.started_at)[-limit:]


def run_label(run: RunResult) -> str:
    """A run's label where it is shown alone (`short_label` of its configuration)."""
    return short_label(run.config)


def throughput_bars(
    runs: Sequence[RunResult], limit: int = 12, label_of: Callable[[RunResult], str] = run_label
) -> list[tuple[str, float]]:
    """Throughput of the newest `limit` successful runs, oldest first, each labelled by
    `label_of` (the screen's name of the run, so its table and charts name it alike).

    Repeated labels get '#2', '#3', ... so every bar stays distinguishable."""
    chosen = bar_runs(runs, limit)
    seen: dict[str, int] = {}
    bars = []
    for run in chosen:
        label = label_of(run)
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} #{seen[label]}"
        bars.append((label, run.throughput_fps))
    return bars


@dataclass(frozen=True)
class ModelSummary:
    """Sparsify's model summary for one run: settings, machine and measured speed."""

    settings: tuple[tuple[str, str], ...]
    """(setting, text) as run, e.g. ("threads", "auto (8)") (perftui.domain.settings.summary)."""
    isa: tuple[str, ...]
    cpu: str
    cores: str
    """'4 cores, 8 logical' (as the environment recorded them), else ''."""
    ms_per_batch: float | None
    """Median latency of one request (one batch)."""
    items_per_s: float | None
    engine_version: str


def _cores(physical: object, logical: object) -> str:
    parts = []
    if isinstance(physical, int) and physical > 0:
        parts.append(f"{physical} cores")
    if isinstance(logical, int) and logical > 0 and logical != physical:
        parts.append(f"{logical} logical")
    return ", ".join(parts)


def model_summary(run: RunResult, engine: str = "") -> ModelSummary:
    """Figures for the summary panel; resolved values win over the requested ones."""
    resolved = run.resolved or {}
    env = resolved.get("environment") or {}
    ok = run.status == "ok" and run.latency_ms is not None
    return ModelSummary(
        settings=summary(run.config, resolved),
        isa=tuple(str(flag) for flag in env.get("isa") or ()),
        cpu=str(env.get("cpu_model") or "unknown CPU"),
        cores=_cores(env.get("physical_cores"), env.get("logical_cores")),
        ms_per_batch=run.latency_ms.median if ok and run.latency_ms else None,
        items_per_s=run.throughput_fps if ok else None,
        engine_version=str(env.get(engine) or "") if engine else "",
    )


@dataclass(frozen=True)
class LiveLine:
    """The rolling figures of one run of a benchmark in progress; x is cumulative seconds."""

    index: int
    label: str
    xs: tuple[float, ...]
    throughput_fps: tuple[float, ...]
    latency_ms: tuple[float, ...]


class LiveSeries:
    """Progress ticks of a running benchmark, one line per run, on a shared time axis.

    Thread-safe: the reader thread adds ticks as they arrive, the UI takes snapshots at its
    own pace. Each line keeps at most `max_points` points (older halves are thinned)."""

    def __init__(self, max_points: int = 240) -> None:
        self.max_points = max(4, max_points)
        self._lock = threading.Lock()
        self._lines: dict[int, dict[str, list[float]]] = {}
        self._labels: dict[int, str] = {}
        self._offset = 0.0
        self._last_elapsed: dict[int, float] = {}
        self._version = 0

    @property
    def version(self) -> int:
        """Changes whenever a tick is added (cheap "has anything changed" check)."""
        return self._version

    def start(self, index: int, label: str) -> None:
        """A run begins: its line starts where the previous runs' timed windows ended."""
        with self._lock:
            self._offset += sum(self._last_elapsed.values())
            self._last_elapsed.clear()
            self._labels[index] = label
            self._lines.setdefault(index, {"x": [], "tput": [], "lat": []})
            self._version += 1

    def add(self, index: int, elapsed_s: float, throughput_fps: float, latency_ms: float) -> None:
        with self._lock:
            line = self._lines.setdefault(index, {"x": [], "tput": [], "lat": []})
            self._labels.setdefault(index, f"run {index + 1}")
            self._last_elapsed[index] = elapsed_s
            line["x"].append(self._offset + elapsed_s)
            line["tput"].append(throughput_fps)
            line["lat"].append(latency_ms)
            if len(line["x"]) > self.max_points:
                for key in line:  # keep every other point of the older half
                    half = len(line[key]) // 2
                    line[key] = line[key][:half:2] + line[key][half:]
            self._version += 1

    def snapshot(self) -> list[LiveLine]:
        with self._lock:
            return [
                LiveLine(
                    i,
                    self._labels.get(i, f"run {i + 1}"),
                    tuple(line["x"]),
                    tuple(line["tput"]),
                    tuple(line["lat"]),
                )
                for i, line in sorted(self._lines.items())
                if line["x"]
            ]
