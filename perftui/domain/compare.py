"""Comparing two projects (A and B): the sweet spot under a latency threshold, the layer-type
table side by side, and the kernel-level join of every layer of both versions.

Pure functions over stored records, shared by `perftui compare` and the dashboard.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from perftui.domain.profile import LayerTypeRow, layer_type_summary
from perftui.domain.records import LayerProfile, RunResult

LATENCY_STATS = ("median", "p90", "p99")


def run_latency(run: RunResult, stat: str) -> float | None:
    """The run's latency statistic in ms, or None for a run without measurements."""
    if stat not in LATENCY_STATS:
        raise ValueError(f"unknown latency statistic {stat!r}; one of {', '.join(LATENCY_STATS)}")
    if run.status != "ok" or run.latency_ms is None:
        return None
    return float(getattr(run.latency_ms, stat))


@dataclass(frozen=True)
class Candidate:
    """A run offered to the sweet-spot search, with the side ('A' or 'B') it belongs to."""

    side: str
    run: RunResult


@dataclass(frozen=True)
class SweetSpot:
    side: str
    run: RunResult
    latency_ms: float
    stat: str


def sweet_spot(
    candidates: Iterable[Candidate], threshold_ms: float, stat: str = "median"
) -> SweetSpot | None:
    """The run with the highest throughput whose latency is at or under the threshold.

    Ties on throughput go to the lower latency, then to side A, then to the smaller run id,
    so the answer never depends on the order of the input. None when no run qualifies."""
    best: tuple[tuple[float, float, str, str], SweetSpot] | None = None
    for candidate in candidates:
        latency = run_latency(candidate.run, stat)
        if latency is None or latency > threshold_ms:
            continue
        key = (-candidate.run.throughput_fps, latency, candidate.side, candidate.run.id)
        if best is None or key < best[0]:
            best = (key, SweetSpot(candidate.side, candidate.run, latency, stat))
    return best[1] if best else None


@dataclass(frozen=True)
class LayerTypeComparison:
    """One layer type in both versions; None where the type does not occur in that version."""

    type: str
    a: LayerTypeRow | None
    b: LayerTypeRow | None

    @property
    def delta_ms(self) -> float:
        return (self.b.time_ms if self.b else 0.0) - (self.a.time_ms if self.a else 0.0)


TYPE_SORT_KEYS = ("type", "a_time", "b_time", "a_share", "b_share", "delta")


def compare_layer_types(
    a: Sequence[LayerProfile], b: Sequence[LayerProfile], sort: str = "a_time"
) -> list[LayerTypeComparison]:
    """The Workbench's Performance Summary: per layer type, time, share and layers per
    precision in A and B. Sorted by one of TYPE_SORT_KEYS, most time first by default."""
    rows_a = {row.type: row for row in layer_type_summary(a)}
    rows_b = {row.type: row for row in layer_type_summary(b)}
    rows = [LayerTypeComparison(t, rows_a.get(t), rows_b.get(t)) for t in {*rows_a, *rows_b}]
    return sort_layer_types(rows, sort)


def sort_layer_types(
    rows: Sequence[LayerTypeComparison], key: str, descending: bool | None = None
) -> list[LayerTypeComparison]:
    """Names ascend and figures descend unless `descending` says otherwise."""
    if key not in TYPE_SORT_KEYS:
        raise ValueError(f"unknown sort key {key!r}; one of {', '.join(TYPE_SORT_KEYS)}")
    if key == "type":
        return sorted(rows, key=lambda r: r.type.casefold(), reverse=bool(descending))

    def value(row: LayerTypeComparison) -> float:
        if key == "delta":
            return abs(row.delta_ms)
        side = row.a if key.startswith("a_") else row.b
        if side is None:
            return -1.0
        return side.time_ms if key.endswith("time") else side.share

    ordered = sorted(rows, key=lambda r: r.type.casefold())
    return sorted(ordered, key=value, reverse=descending is not False)


def distribution(
    rows: Sequence[LayerTypeComparison], included: set[str] | None = None
) -> list[tuple[str, float, float]]:
    """(type, share in A, share in B) of the included types, shares renormalised over them,
    for the distribution bar chart; all types when `included` is None."""
    chosen = [r for r in rows if included is None or r.type in included]
    total_a = sum(r.a.time_ms for r in chosen if r.a) or 1.0
    total_b = sum(r.b.time_ms for r in chosen if r.b) or 1.0
    return [
        (r.type, (r.a.time_ms if r.a else 0.0) / total_a, (r.b.time_ms if r.b else 0.0) / total_b)
        for r in chosen
    ]


# --- kernel level ---------------------------------------------------------------------------

_SUFFIXES = re.compile(
    r"(_quant|_token_\d+|_output_0|/WithoutBiases|/fused\w*|_fused\w*)+$", re.IGNORECASE
)


def normalised_name(name: str) -> str:
    """A layer name without the suffixes engines add when they fuse or quantise a node."""
    return _SUFFIXES.sub("", name)


@dataclass(frozen=True)
class LayerPair:
    """One row of the kernel-level table: a layer of A and/or its twin in B."""

    name: str
    a: LayerProfile | None
    b: LayerProfile | None
    matched_by: str = ""
    """'name', 'original name', 'normalised name' or 'scope'; '' when only one side has it."""

    @property
    def presence(self) -> str:
        """'both', 'a_only' or 'b_only'."""
        if self.a and self.b:
            return "both"
        return "a_only" if self.a else "b_only"

    @property
    def time_a(self) -> float | None:
        return self.a.time_ms if self.a else None

    @property
    def time_b(self) -> float | None:
        return self.b.time_ms if self.b else None

    @property
    def delta_ms(self) -> float | None:
        """B minus A; None unless the layer ran in both."""
        if self.a is None or self.b is None:
            return None
        return self.b.time_ms - self.a.time_ms

    @property
    def ratio(self) -> float | None:
        """B / A; None unless both ran and A took measurable time."""
        if self.a is None or self.b is None or self.a.time_ms <= 0:
            return None
        return self.b.time_ms / self.a.time_ms

    @property
    def executed_in(self) -> str:
        """Which versions actually executed the layer: 'both', 'a', 'b' or 'neither'."""
        ran_a = self.a is not None and self.a.status == "executed"
        ran_b = self.b is not None and self.b.status == "executed"
        return {(True, True): "both", (True, False): "a", (False, True): "b"}.get(
            (ran_a, ran_b), "neither"
        )


def scopes(layer: LayerProfile) -> set[str]:
    """The name scopes ('block3/pw' of 'block3/pw/Conv') of a layer and its original nodes."""
    return {n.rsplit("/", 1)[0] for n in (layer.name, *layer.original_names) if "/" in n}


def _related_types(a: str, b: str) -> bool:
    """Same operator, or one a variant of the other (FullyConnected / ...QuantizedLegacy)."""
    return a.startswith(b) or b.startswith(a)


def join_layers(a: Sequence[LayerProfile], b: Sequence[LayerProfile]) -> list[LayerPair]:
    """Every layer of both versions, paired by name, then by original (pre-fusion) names,
    then by normalised name, then by a shared name scope and related type (an engine that
    folds BatchNorm into a Conv may rename the Conv but keeps the scope of the nodes it
    fused). Each layer is used once; A's order first, B-only layers after."""
    exact = {layer.name: i for i, layer in enumerate(b)}
    by_original: dict[str, int] = {}
    by_normalised: dict[str, int] = {}
    by_scope: dict[str, list[int]] = {}
    for i, layer in enumerate(b):
        for original in layer.original_names:
            by_original.setdefault(original, i)
        by_normalised.setdefault(normalised_name(layer.name), i)
        for scope in scopes(layer):
            by_scope.setdefault(scope, []).append(i)

    def candidates(layer: LayerProfile) -> Iterable[tuple[int | None, str, str]]:
        yield exact.get(layer.name), "name", layer.name
        yield by_original.get(layer.name), "original name", layer.name
        for original in layer.original_names:
            yield exact.get(original), "original name", original
            yield by_original.get(original), "original name", original
        normalised = normalised_name(layer.name)
        yield by_normalised.get(normalised), "normalised name", normalised
        for scope in sorted(scopes(layer)):
            for i in by_scope.get(scope, ()):
                if _related_types(layer.type, b[i].type):
                    yield i, "scope", scope

    used: set[int] = set()
    pairs: list[LayerPair] = []
    for layer in a:
        found = next((c for c in candidates(layer) if c[0] is not None and c[0] not in used), None)
        if found is None:
            pairs.append(LayerPair(layer.name, layer, None))
        else:
            index, how, key = found
            assert index is not None
            used.add(index)
            pairs.append(LayerPair(key, layer, b[index], how))
    pairs += [LayerPair(layer.name, None, layer) for i, layer in enumerate(b) if i not in used]
    return pairs


LAYER_SORT_KEYS = ("delta", "time_a", "time_b", "ratio", "name", "type")


def filter_pairs(pairs: Sequence[LayerPair], min_delta_ms: float = 0.0) -> list[LayerPair]:
    """Pairs whose |delta| is at least the threshold; layers in only one version always stay."""
    return [p for p in pairs if p.delta_ms is None or abs(p.delta_ms) >= min_delta_ms]


def sort_pairs(pairs: Sequence[LayerPair], key: str = "delta") -> list[LayerPair]:
    """'delta' sorts by |delta| (one-sided layers by their time), figures descend, names ascend."""
    if key not in LAYER_SORT_KEYS:
        raise ValueError(f"unknown sort key {key!r}; one of {', '.join(LAYER_SORT_KEYS)}")
    if key == "name":
        return sorted(pairs, key=lambda p: p.name.casefold())
    if key == "type":
        return sorted(pairs, key=lambda p: ((p.a or p.b).type.casefold(), p.name))  # type: ignore[union-attr]

    def value(pair: LayerPair) -> float:
        if key == "delta":
            return (
                abs(pair.delta_ms)
                if pair.delta_ms is not None
                else (pair.time_a or pair.time_b or 0)
            )
        found = getattr(pair, key)
        return -1.0 if found is None else float(found)

    return sorted(pairs, key=value, reverse=True)


# --- two projects ---------------------------------------------------------------------------


def pick_run(runs: Sequence[RunResult], threshold_ms: float | None, stat: str) -> RunResult | None:
    """A side's representative run: its own sweet spot under the threshold, else (no run under
    it, or no threshold) its highest-throughput successful run."""
    ok = [r for r in runs if run_latency(r, stat) is not None]
    if threshold_ms is not None:
        spot = sweet_spot((Candidate("A", r) for r in ok), threshold_ms, stat)
        if spot is not None:
            return spot.run
    return max(ok, key=lambda r: (r.throughput_fps, r.id), default=None)


@dataclass(frozen=True)
class Comparison:
    a_name: str
    b_name: str
    a: RunResult | None
    b: RunResult | None
    threshold_ms: float | None
    stat: str
    sweet: SweetSpot | None
    layer_types: list[LayerTypeComparison]
    layers: list[LayerPair]
    notes: list[str]


def compare_projects(
    a_name: str,
    a_runs: Sequence[RunResult],
    b_name: str,
    b_runs: Sequence[RunResult],
    threshold_ms: float | None = None,
    stat: str = "median",
) -> Comparison:
    """Everything `perftui compare` and the compare screen show, from the selected runs."""
    candidates = [Candidate("A", r) for r in a_runs] + [Candidate("B", r) for r in b_runs]
    sweet = sweet_spot(candidates, threshold_ms, stat) if threshold_ms is not None else None
    a, b = pick_run(a_runs, threshold_ms, stat), pick_run(b_runs, threshold_ms, stat)
    notes = []
    if threshold_ms is not None and sweet is None:
        notes.append(f"no selected run has a {stat} latency at or under {threshold_ms:g} ms")
    for side, name, run in (("A", a_name, a), ("B", b_name, b)):
        if run is None:
            notes.append(f"{side} ({name}) has no successful run to compare")
        elif not run.layers:
            notes.append(
                f"{side} ({name}): the compared run has no layer profile; benchmark it again "
                "with per-layer profiling (`perftui bench ... --profile`) to compare layers"
            )
    layers_a = list(a.layers or ()) if a else []
    layers_b = list(b.layers or ()) if b else []
    profiled = bool(layers_a and layers_b)
    return Comparison(
        a_name=a_name,
        b_name=b_name,
        a=a,
        b=b,
        threshold_ms=threshold_ms,
        stat=stat,
        sweet=sweet,
        layer_types=compare_layer_types(layers_a, layers_b) if profiled else [],
        layers=sort_pairs(join_layers(layers_a, layers_b)) if profiled else [],
        notes=notes,
    )
