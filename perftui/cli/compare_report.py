"""`perftui compare` output: the JSON document and the text a person reads."""

from __future__ import annotations

from typing import Any

from perftui.cli.textfmt import num, table
from perftui.domain.compare import Comparison, LayerPair, LayerTypeComparison
from perftui.domain.profile import LayerTypeRow, precision_mix
from perftui.domain.records import RunResult
from perftui.domain.units import ms

TOP_LAYERS = 15


def _run(run: RunResult | None) -> dict[str, Any] | None:
    if run is None:
        return None
    data = run.to_dict()
    data.pop("layers")  # they are in the document's "layers" join
    data["profiled"] = bool(run.layers)
    return data


def _type_side(row: LayerTypeComparison, side: str) -> dict[str, Any] | None:
    found = row.a if side == "a" else row.b
    if found is None:
        return None
    return {
        "time_ms": found.time_ms,
        "share": found.share,
        "layers": found.layers,
        "precisions": found.precisions,
        "not_run": found.not_run,
    }


def _layer_side(pair: LayerPair, side: str) -> dict[str, Any] | None:
    found = pair.a if side == "a" else pair.b
    return None if found is None else found.to_dict()


def comparison_document(c: Comparison) -> dict[str, Any]:
    sweet = None
    if c.sweet is not None:
        project = c.a_name if c.sweet.side == "A" else c.b_name
        sweet = {
            "project": project,
            "side": c.sweet.side,
            "latency_ms": c.sweet.latency_ms,
            "run": _run(c.sweet.run),
        }
    return {
        "threshold_ms": c.threshold_ms,
        "stat": c.stat,
        "sweet_spot": sweet,
        "a": {"project": c.a_name, "run": _run(c.a)},
        "b": {"project": c.b_name, "run": _run(c.b)},
        "layer_types": [
            {
                "type": r.type,
                "a": _type_side(r, "a"),
                "b": _type_side(r, "b"),
                "delta_ms": r.delta_ms,
            }
            for r in c.layer_types
        ],
        "layers": [
            {
                "name": p.name,
                "presence": p.presence,
                "matched_by": p.matched_by or None,
                "a": _layer_side(p, "a"),
                "b": _layer_side(p, "b"),
                "delta_ms": p.delta_ms,
                "ratio": p.ratio,
            }
            for p in c.layers
        ],
        "notes": c.notes,
    }


def _latency(run: RunResult | None, stat: str) -> float | None:
    return getattr(run.latency_ms, stat) if run and run.latency_ms else None


def comparison_text(c: Comparison) -> str:
    lines = []
    if c.threshold_ms is not None:
        if c.sweet is None:
            lines.append(f"sweet spot: none under {c.threshold_ms:g} ms ({c.stat})")
        else:
            name = c.a_name if c.sweet.side == "A" else c.b_name
            lines.append(
                f"sweet spot under {c.threshold_ms:g} ms ({c.stat}): {c.sweet.side} {name} "
                f"{c.sweet.run.config.label()}: {num(c.sweet.run.throughput_fps, 1)} fps, "
                f"{ms(c.sweet.latency_ms)} ms"
            )
        lines.append("")
    rows = []
    for side, name, run in (("A", c.a_name, c.a), ("B", c.b_name, c.b)):
        rows.append(
            [
                side,
                name,
                run.config.label() if run else "-",
                num(run.throughput_fps, 1) if run else "-",
                ms(_latency(run, c.stat)),
            ]
        )
    lines.append("inference time:")
    lines += [
        "  " + x
        for x in table(
            ("", "project", "run", "fps", f"{c.stat} ms"), rows, right={3, 4}
        ).splitlines()
    ]
    if c.a and c.b and c.a.throughput_fps > 0:
        lines.append(f"  B/A throughput: {c.b.throughput_fps / c.a.throughput_fps:.2f}x")
    if c.layer_types:
        lines += ["", "layer types (ms per request; layers per precision):"]
        type_rows = [
            [
                r.type,
                ms(r.a.time_ms) if r.a else "-",
                _precisions(r.a),
                ms(r.b.time_ms) if r.b else "-",
                _precisions(r.b),
                f"{r.delta_ms:+.3f}",
            ]
            for r in c.layer_types
        ]
        headers = ("type", "A ms", "A precisions", "B ms", "B precisions", "delta")
        lines += ["  " + x for x in table(headers, type_rows, right={1, 3, 5}).splitlines()]
    if c.layers:
        lines += ["", f"largest per-layer changes (top {TOP_LAYERS} of {len(c.layers)}):"]
        layer_rows = [
            [
                p.name,
                ms(p.time_a),
                p.a.precision if p.a else "-",
                ms(p.time_b),
                p.b.precision if p.b else "-",
                f"{p.delta_ms:+.3f}" if p.delta_ms is not None else f"only {p.presence[0].upper()}",
            ]
            for p in c.layers[:TOP_LAYERS]
        ]
        headers = ("layer", "A ms", "A prec", "B ms", "B prec", "delta")
        lines += ["  " + x for x in table(headers, layer_rows, right={1, 3, 5}).splitlines()]
    if c.notes:
        lines += [""] + [f"note: {note}" for note in c.notes]
    return "\n".join(lines)


def _precisions(row: LayerTypeRow | None) -> str:
    return (precision_mix(row.precisions) if row else "") or "-"
