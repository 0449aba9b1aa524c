"""The layers of two versions side by side: per layer type (the Workbench's Performance
Summary) and per layer (its Kernel-Level Performance), joined across the versions."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from perftui.domain.compare.sides import Side
from perftui.domain.errors import InputError
from perftui.domain.model.profile import LayerTypeRow, layer_type_summary
from perftui.domain.records import EXECUTED, LayerProfile


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

    def layer(self, side: Side) -> LayerProfile | None:
        return self.a if side is Side.A else self.b

    @property
    def type(self) -> str:
        """The layer's type (A's where both have the layer)."""
        layer = self.a or self.b
        return layer.type if layer else ""

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
    fused). Each layer is used once; A's order first, B-only layers after.

    An executed layer pairs with an executed one when any candidate is (OpenVINO keeps a
    not-run stub under the name of a node it fused into a FullyConnected that carries the
    name among its original names), and A's executed layers choose first."""
    exact: dict[str, int] = {}
    by_original: dict[str, int] = {}
    by_normalised: dict[str, int] = {}
    by_scope: dict[str, list[int]] = {}
    for i, layer in sorted(enumerate(b), key=lambda item: item[1].status != EXECUTED):
        exact.setdefault(layer.name, i)
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

    def pick(layer: LayerProfile, alike: bool) -> tuple[int, str, str] | None:
        for index, how, key in candidates(layer):
            if index is None or index in used:
                continue
            if alike and (b[index].status == EXECUTED) != (layer.status == EXECUTED):
                continue
            return index, how, key
        return None

    chosen: dict[int, tuple[int, str, str]] = {}
    order = sorted(range(len(a)), key=lambda i: a[i].status != EXECUTED)
    for alike in (True, False):
        for i in order:
            if i not in chosen and (found := pick(a[i], alike)) is not None:
                chosen[i] = found
                used.add(found[0])
    pairs: list[LayerPair] = []
    for i, layer in enumerate(a):
        if i not in chosen:
            pairs.append(LayerPair(layer.name, layer, None))
            continue
        index, how, key = chosen[i]
        pairs.append(LayerPair(key, layer, b[index], how))
    pairs += [LayerPair(layer.name, None, layer) for i, layer in enumerate(b) if i not in used]
    return pairs


LAYER_SORT_KEYS = ("delta", "time_a", "time_b", "ratio", "name", "type")


def filter_pairs(pairs: Sequence[LayerPair], min_delta_ms: float = 0.0) -> list[LayerPair]:
    """Pairs whose |delta| is at least the threshold; layers in only one version always stay."""
    return [p for p in pairs if p.delta_ms is None or abs(p.delta_ms) >= min_delta_ms]


def sort_pairs(
    pairs: Sequence[LayerPair], key: str = "delta", reverse: bool = False
) -> list[LayerPair]:
    """'delta' sorts by |delta| (one-sided layers by their time), figures descend, names ascend;
    `reverse` turns the order round."""
    if key not in LAYER_SORT_KEYS:
        raise ValueError(f"unknown sort key {key!r}; one of {', '.join(LAYER_SORT_KEYS)}")
    if key == "name":
        return sorted(pairs, key=lambda p: p.name.casefold(), reverse=reverse)
    if key == "type":
        return sorted(
            pairs,
            key=lambda p: (p.type.casefold(), p.name),
            reverse=reverse,
        )

    def value(pair: LayerPair) -> float:
        if key == "delta":
            return (
                abs(pair.delta_ms)
                if pair.delta_ms is not None
                else (pair.time_a or pair.time_b or 0)
            )
        found = getattr(pair, key)
        return -1.0 if found is None else float(found)

    return sorted(pairs, key=value, reverse=not reverse)


def parse_min_delta(text: str) -> float:
    """The kernel-level delta filter in ms: empty means none (0), else a number >= 0."""
    cleaned = str(text).strip()
    if not cleaned:
        return 0.0
    try:
        value = float(cleaned)
    except ValueError:
        raise InputError(
            f"delta filter {cleaned!r} is not a number; give milliseconds >= 0, e.g. 0.05"
        ) from None
    if not value >= 0 or value == float("inf"):
        raise InputError(f"delta filter {value:g} is out of range; give milliseconds >= 0")
    return value


@dataclass(frozen=True)
class DetailRow:
    """One attribute of a layer in A and in B ('' where that version has no such layer)."""

    label: str
    a: str
    b: str
    differs: bool


@dataclass(frozen=True)
class LayerDetail:
    """The kernel-level detail pane of one joined layer."""

    name: str
    matched_by: str
    executed_in: str
    rows: tuple[DetailRow, ...]
    notice: str | None
    """Set when a version did not execute the layer, in plain words."""


def layer_detail(pair: LayerPair, a_name: str = "A", b_name: str = "B") -> LayerDetail:
    """Type, exec type, precision, status, names and original names of a layer in each
    version, which attributes differ, and a notice when a version did not execute it."""

    fields: list[tuple[str, Callable[[LayerProfile], str]]] = [
        ("type", lambda x: x.type),
        ("exec type", lambda x: x.exec_type),
        ("precision", lambda x: x.precision or "?"),
        ("status", lambda x: x.status),
        ("name", lambda x: x.name),
        ("original", lambda x: ", ".join(x.original_names)),
    ]
    rows = []
    for label, get in fields:
        a = "" if pair.a is None else get(pair.a)
        b = "" if pair.b is None else get(pair.b)
        rows.append(DetailRow(label, a, b, pair.presence == "both" and a != b))
    names = {Side.A: a_name, Side.B: b_name}
    notices = []
    for side in Side:
        layer, name = pair.layer(side), names[side]
        if layer is None:
            notices.append(
                f"Not executed in {side} ({name}): no layer of {side} matches this layer of "
                f"{side.other} (fused into another layer, removed, or renamed beyond "
                "recognition)."
            )
        elif layer.status != "executed":
            notices.append(
                f"Not executed in {side} ({name}): the engine reports it as "
                f"{layer.status.replace('_', ' ')}."
            )
    return LayerDetail(
        name=pair.name,
        matched_by=pair.matched_by,
        executed_in=pair.executed_in,
        rows=tuple(rows),
        notice=" ".join(notices) or None,
    )
