"""Per-layer profiles: layer-type summary, per-layer rows with shares, and the join of
theoretical FLOPs per node with measured time per layer.

Pure functions over `LayerProfile` records (no textual, no engine). Shares are fractions of
the total measured time of the executed layers of one run; layers that were not run or were
optimized out keep their rows with zero time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from perftui.domain.model.model_info import NodeFlops
from perftui.domain.records import LayerProfile, RunResult

SORT_KEYS = ("time", "type", "precision", "name", "flops")


PRECISION_NAMES = {
    "FP32": "FP32",
    "F32": "FP32",
    "FP16": "FP16",
    "F16": "FP16",
    "BF16": "BF16",
    "FP64": "FP64",
    "F64": "FP64",
    "I4": "I4",
    "U4": "U4",
    "I8": "I8",
    "U8": "U8",
    "I16": "I16",
    "U16": "U16",
    "I32": "I32",
    "U32": "U32",
    "I64": "I64",
    "U64": "U64",
    "U1": "U1",
    "BOOLEAN": "BOOL",
    "BOOL": "BOOL",
}
"""Runtime precision names, normalised to the vocabulary both engines report (FP32, I8, ...)."""


def precision_from_exec_type(exec_type: str) -> str:
    """Runtime precision from an exec_type suffix: "jit_avx2_I8" -> "I8",
    "brgconv_avx2_f32" -> "FP32"; "" when the suffix names no precision ("undef")."""
    suffix = exec_type.rsplit("_", 1)[-1].upper() if exec_type else ""
    return PRECISION_NAMES.get(suffix, "")


def total_time_ms(layers: Iterable[LayerProfile]) -> float:
    """Sum of the measured time of all layers (ms per request)."""
    return sum(layer.time_ms for layer in layers)


def latest_profiled(runs: Sequence[RunResult]) -> RunResult | None:
    """The newest run that has a non-empty per-layer profile."""
    profiled = [r for r in runs if r.layers]
    return max(profiled, key=lambda r: r.started_at, default=None)


@dataclass(frozen=True)
class LayerTypeRow:
    """Time spent in one layer type (operator) and how its layers ran."""

    type: str
    time_ms: float
    share: float
    layers: int
    precisions: dict[str, int] = field(default_factory=dict)
    """Number of layers per runtime precision (executed layers only)."""
    not_run: int = 0
    """Layers of this type that were fused, optimized out or not run."""


def layer_type_summary(layers: Sequence[LayerProfile]) -> list[LayerTypeRow]:
    """Per layer type: total time, share of the run's time, layer count and precision mix;
    most expensive type first (ties by name)."""
    total = total_time_ms(layers)
    times: dict[str, float] = {}
    counts: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    precisions: dict[str, Counter[str]] = {}
    for layer in layers:
        times[layer.type] = times.get(layer.type, 0.0) + layer.time_ms
        counts[layer.type] += 1
        if layer.status != "executed":
            skipped[layer.type] += 1
        else:
            precisions.setdefault(layer.type, Counter())[layer.precision or "?"] += 1
    rows = [
        LayerTypeRow(
            type=name,
            time_ms=time_ms,
            share=time_ms / total if total > 0 else 0.0,
            layers=counts[name],
            precisions=dict(sorted(precisions.get(name, Counter()).items())),
            not_run=skipped[name],
        )
        for name, time_ms in times.items()
    ]
    rows.sort(key=lambda row: (-row.time_ms, row.type))
    return rows


def precision_counts(layers: Sequence[LayerProfile]) -> dict[str, int]:
    """Executed layers per runtime precision, e.g. {'FP32': 30, 'I8': 28}."""
    counts = Counter(layer.precision or "?" for layer in layers if layer.status == "executed")
    return dict(sorted(counts.items()))


def precision_mix(counts: dict[str, int]) -> str:
    """Layers per runtime precision, the most used first: '30 FP32 28 I8' ('' for none)."""
    return " ".join(f"{n} {p}" for p, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def _flops_by_layer(
    layers: Sequence[LayerProfile], node_flops: Sequence[NodeFlops]
) -> list[tuple[int, ...]]:
    """For each layer, the indices of the nodes it ran.

    A node belongs to the first layer whose name or original (fused) names include the node's
    name; a node left over belongs to the first layer with a name below it ('fc/Gemm' ->
    'fc/Gemm/WithoutBiases/...'), as engines name the kernels they derive from a node, and
    then to the first layer named after one of the nodes it was fused with (`fused_names`)."""
    index = {node.name: i for i, node in enumerate(node_flops)}
    owner: dict[int, int] = {}
    names_of = [(layer.name, *layer.original_names) for layer in layers]
    for n, names in enumerate(names_of):
        for name in names:
            if name in index:
                owner.setdefault(index[name], n)
    layer_of = {name: n for n, names in reversed(list(enumerate(names_of))) for name in names}
    for i, node in enumerate(node_flops):
        if i in owner:
            continue
        prefix = node.name + "/"
        below = (n for n, names in enumerate(names_of) if any(x.startswith(prefix) for x in names))
        fused = (layer_of[name] for name in node.fused_names if name in layer_of)
        found = next(below, None)
        if found is None:
            found = next(fused, None)
        if found is not None:
            owner[i] = found
    result: list[list[int]] = [[] for _ in layers]
    for i, n in sorted(owner.items()):
        result[n].append(i)
    return [tuple(nodes) for nodes in result]


@dataclass(frozen=True)
class LayerRow:
    """One layer of a profile with its share of the time and its theoretical FLOPs."""

    name: str
    type: str
    exec_type: str
    precision: str
    status: str
    time_ms: float
    share: float
    flops: int | None
    """Sum of the theoretical FLOPs of the model nodes this layer ran (None if unknown)."""

    @property
    def gflops_per_s(self) -> float | None:
        """Achieved GFLOP/s: the layer's theoretical FLOPs over its measured time (None when
        either is unknown or zero). FLOPs are at batch 1: a profile at batch N does N times
        the work, so compare layers of one run, not runs of different batches."""
        return achieved_gflops(self.flops, self.time_ms)


def achieved_gflops(flops: int | None, time_ms: float) -> float | None:
    """GFLOP/s of `flops` done in `time_ms` milliseconds (None when either is unknown or 0)."""
    if not flops or time_ms <= 0:
        return None
    return flops / (time_ms * 1e-3) / 1e9


def flops_by_type(rows: Sequence[LayerRow]) -> dict[str, int]:
    """Per layer type, the theoretical FLOPs of its layers whose FLOPs are known."""
    found: dict[str, int] = {}
    for row in rows:
        if row.flops is not None:
            found[row.type] = found.get(row.type, 0) + row.flops
    return found


def layer_rows(
    layers: Sequence[LayerProfile],
    node_flops: Sequence[NodeFlops] | None = None,
    sort: str = "time",
    descending: bool = True,
) -> list[LayerRow]:
    """Per-layer rows, sorted by one of SORT_KEYS (ties keep the engine's order)."""
    total = total_time_ms(layers)
    matched = _flops_by_layer(layers, node_flops) if node_flops else [() for _ in layers]
    rows = [
        LayerRow(
            name=layer.name,
            type=layer.type,
            exec_type=layer.exec_type,
            precision=layer.precision,
            status=layer.status,
            time_ms=layer.time_ms,
            share=layer.time_ms / total if total > 0 else 0.0,
            flops=sum(node_flops[i].flops for i in nodes) if node_flops and nodes else None,
        )
        for layer, nodes in zip(layers, matched, strict=True)
    ]
    return sort_layer_rows(rows, sort, descending)


def sort_layer_rows(rows: Sequence[LayerRow], key: str, descending: bool = True) -> list[LayerRow]:
    """Rows sorted by 'time', 'type', 'precision', 'name' or 'flops' (unknown FLOPs last)."""
    if key not in SORT_KEYS:
        raise ValueError(f"unknown sort key {key!r}; one of {', '.join(SORT_KEYS)}")
    if key == "time":
        return sorted(rows, key=lambda r: r.time_ms, reverse=descending)
    if key == "flops":
        known = sorted(
            (r for r in rows if r.flops is not None), key=lambda r: r.flops or 0, reverse=descending
        )
        return known + [r for r in rows if r.flops is None]
    return sorted(
        rows, key=lambda r: (str(getattr(r, key)).casefold(), -r.time_ms), reverse=descending
    )


@dataclass(frozen=True)
class FlopsRow:
    """A model node's theoretical FLOPs beside the measured time of the layer that ran it."""

    name: str
    op_type: str
    flops: int
    flops_share: float
    layer: str | None
    """The measured layer that ran this node (None when no layer could be matched)."""
    time_ms: float | None
    time_share: float | None
    shared_with: int = 0
    """How many other FLOP-counted nodes the same layer ran (its time covers them all)."""


def flops_profile(
    node_flops: Sequence[NodeFlops], layers: Sequence[LayerProfile] | None = None
) -> list[FlopsRow]:
    """Every FLOP-counted node, most FLOPs first, with the measured time of its layer.

    A node is matched to the layer whose name, or one of whose original (fused) names, is the
    node's name; a layer that ran several counted nodes is reported on each with `shared_with`.
    """
    total_flops = sum(node.flops for node in node_flops)
    owner: dict[int, tuple[LayerProfile, int]] = {}
    total_time = 0.0
    if layers:
        total_time = total_time_ms(layers)
        for layer, nodes in zip(layers, _flops_by_layer(layers, node_flops), strict=True):
            for i in nodes:
                owner.setdefault(i, (layer, len(nodes) - 1))
    rows = []
    for i, node in enumerate(node_flops):
        owned, shared = owner.get(i, (None, 0))
        rows.append(
            FlopsRow(
                name=node.name,
                op_type=node.op_type,
                flops=node.flops,
                flops_share=node.flops / total_flops if total_flops > 0 else 0.0,
                layer=owned.name if owned else None,
                time_ms=owned.time_ms if owned else None,
                time_share=(owned.time_ms / total_time if total_time > 0 else 0.0)
                if owned
                else None,
                shared_with=shared,
            )
        )
    rows.sort(key=lambda row: (-row.flops, row.name))
    return rows


def runtime_precision(runs: Sequence[RunResult]) -> str:
    """A project's runtime precision in a few characters: the precisions of the newest
    profile by number of layers (e.g. 'I8/FP32'), else the engine's inference precision of
    the newest successful run (e.g. 'f32'; 'model' on ONNX Runtime, as the runs table says),
    else '—'."""
    profiled = latest_profiled(runs)
    if profiled is not None and profiled.layers:
        counts = precision_counts(profiled.layers)
        ranked = sorted((p for p in counts if p != "?"), key=lambda p: (-counts[p], p))
        if ranked:
            return "/".join(ranked[:2])
    for run in sorted(runs, key=lambda r: r.started_at, reverse=True):
        value = (run.resolved or {}).get("precision")
        if run.status == "ok" and isinstance(value, str) and value:
            return value
    return "—"
