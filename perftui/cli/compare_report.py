"""`perftui compare` output: the JSON document and the text a person reads."""

from __future__ import annotations

from typing import Any

from perftui.cli.textfmt import ms_with_interval, table, with_interval
from perftui.domain.compare import Comparison, Difference, LayerPair, LayerTypeComparison
from perftui.domain.compare.environments import EnvRow, environment_differences
from perftui.domain.compare.pairing import APART
from perftui.domain.compare.ranking import Candidate, SweetSpot, cost_interval, cost_with_interval
from perftui.domain.measurement.context import precision_run, ran_precision, ran_precisions
from perftui.domain.measurement.cost import (
    COST_HEADER,
    cost_text,
    group_cost,
    runs_price,
)
from perftui.domain.measurement.figures import ConfigGroup
from perftui.domain.measurement.memory import mib_text, runs_peak_text
from perftui.domain.model.profile import LayerTypeRow, precision_mix
from perftui.domain.records import RunResult
from perftui.domain.units import ms

TOP_LAYERS = 15


def _run(run: RunResult | None, group: ConfigGroup | None = None) -> dict[str, Any] | None:
    """A compared run; with its `group`, the configuration's figures, intervals and verdict
    (its repetitions combined)."""
    if run is None:
        return None
    data = run.to_dict()
    data.pop("layers")  # they are in the document's "layers" join
    data["profiled"] = bool(run.layers)
    data["precision_run"] = ran_precision(run)
    if group is not None:
        data["price_per_hour"] = runs_price(group.runs)
        data["cost_per_million"] = group_cost(group)
        data["repeats"] = len(group.runs)
        data["precision_run"] = ran_precisions(group.runs)
        data["combined_throughput_fps"] = group.figures.throughput_fps
        data.update(group.figures.to_dict())
    return data


def _difference(found: Difference | None) -> dict[str, Any] | None:
    if found is None:
        return None
    ratio = found.ratio
    return {
        "metric": found.metric,
        "ratio": ratio.value if ratio else None,
        "ci": [ratio.lo, ratio.hi] if ratio else None,
        "significant": found.significant,
        "verdict": found.text,
    }


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


def _configuration(c: Comparison, found: Candidate) -> dict[str, Any]:
    """A configuration the sweet spot ranks: its combined figures with their intervals, and
    the run that stands for it (with its repetitions' figures)."""
    return {
        "project": c.name(found.side),
        "side": found.side,
        "config": found.group.config.label(),
        "repeats": len(found.group.runs),
        "throughput_fps": found.throughput_fps,
        "throughput_ci": found.throughput.as_list() if found.throughput else None,
        "latency_ms": found.latency_ms(c.stat),
        "latency_ci_ms": (latency.as_list() if (latency := found.latency(c.stat)) else None),
        "run": _run(found.run, found.group),
    }


def comparison_document(c: Comparison) -> dict[str, Any]:
    sweet = None
    if c.sweet is not None:
        sweet = {
            **_configuration(c, c.sweet.best),
            "within_noise": [_configuration(c, x) for x in c.sweet.within_noise],
        }
    return {
        "threshold_ms": c.threshold_ms,
        "max_memory_mib": c.max_memory_mib,
        "stat": c.stat,
        "sweet_spot": sweet,
        "a": {"project": c.a_name, "run": _run(c.a, c.groups[0])},
        "b": {"project": c.b_name, "run": _run(c.b, c.groups[1])},
        "throughput": _difference(c.throughput),
        "latency": _difference(c.latency),
        "memory": c.memory.to_dict() if c.memory else None,
        "environment_differences": [
            {"property": row.label, "a": row.a, "b": row.b} for row in _env_differences(c)
        ],
        "paired_rounds": c.paired_rounds,
        "alternated": _alternated(c),
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


def _alternated(c: Comparison) -> dict[str, Any] | None:
    """The latest alternated measurement of the compared configurations, where B/A above
    was judged from runs measured apart."""
    found = c.alternated
    if found is None:
        return None
    return {
        "rounds": found.rounds,
        "throughput": _difference(found.throughput),
        "latency": _difference(found.latency),
    }


def _figures_text(found: Candidate, stat: str) -> str:
    """'2,707 ±5% fps, 14.9 ±3% ms (median), 5 repeats'."""
    repeats = len(found.group.runs)
    return (
        f"{with_interval(found.throughput_fps, found.throughput)} fps, "
        f"{ms_with_interval(found.latency_ms(stat), found.latency(stat))} ms ({stat})"
        + (f", {repeats} repeats combined" if repeats > 1 else "")
    )


def comparison_text(c: Comparison) -> str:
    lines = []
    if c.threshold_ms is not None or c.max_memory_mib is not None:
        limits = _limits_text(c)
        if c.sweet is None:
            lines.append(f"sweet spot: none {limits}")
        else:
            spot = c.sweet.best
            peak = runs_peak_text(r.memory for r in spot.group.ok_runs)
            lines.append(
                f"sweet spot {limits}: {spot.side} {c.name(spot.side)} "
                f"{spot.group.config.label()}: {_figures_text(spot, c.stat)}"
                + (f", peak {peak} MiB" if "?" not in peak else "")
            )
            lines += [
                f"  within noise of it: {x.side} {c.name(x.side)} {x.group.config.label()}: "
                f"{_figures_text(x, c.stat)}"
                for x in c.sweet.within_noise
            ]
        lines.append("")
    rows = []
    for side, name, group in zip("AB", (c.a_name, c.b_name), c.groups, strict=True):
        rows.append(_side_row(side, name, group, c.stat))
    headers: tuple[str, ...] = ("", "project", "run", "ran", "rep", "verdict", "fps")
    headers, right = (*headers, f"{c.stat} ms"), {4, 6, 7}
    if any(g is not None and runs_price(g.runs) is not None for g in c.groups):
        headers, right = (*headers[:7], COST_HEADER, headers[7]), {4, 6, 7, 8}
        for row, group in zip(rows, c.groups, strict=True):
            row.insert(7, cost_text(group_cost(group)) if group is not None else "-")
    lines.append("inference time:")
    lines += ["  " + x for x in table(headers, rows, right=right).splitlines()]
    verdicts = [found.text for found in (c.throughput, c.latency) if found is not None]
    if c.alternated is not None:  # the verdict to trust first, each said what it is of
        lines.append(f"  {c.alternated.text}")
        verdicts = [f"{APART}: " + "; ".join(verdicts)] if verdicts else []
    lines += [f"  {text}" for text in verdicts]
    if differences := _env_differences(c):  # beside the verdict: what else differed
        lines.append("  on different machines; B/A is theirs, not the model's alone:")
        lines += [f"    {row.label}: A {row.a} | B {row.b}" for row in differences]
    if c.memory is not None:
        lines.append(f"  {c.memory.text}")
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


def _env_differences(c: Comparison) -> list[EnvRow]:
    """How the compared runs' recorded environments differ (none when either is unknown)."""
    if c.a is None or c.b is None:
        return []
    envs = [run.resolved.get("environment") or {} for run in (c.a, c.b)]
    return environment_differences(envs[0], envs[1])


def _limits_text(c: Comparison) -> str:
    """'under 5 ms (median) and 512 MiB'."""
    parts = [f"{c.threshold_ms:g} ms ({c.stat})"] if c.threshold_ms is not None else []
    parts += [f"{mib_text(c.max_memory_mib)} MiB"] if c.max_memory_mib is not None else []
    return "under " + " and ".join(parts)


def _precisions(row: LayerTypeRow | None) -> str:
    return (precision_mix(row.precisions) if row else "") or "-"


def _side_row(side: str, name: str, group: ConfigGroup | None, stat: str) -> list[str]:
    if group is None:
        return [side, name, "-", "-", "-", "-", "-", "-"]
    figures = group.figures
    return [
        side,
        name,
        group.config.label(),
        precision_run(group.runs),
        str(len(group.runs)),
        figures.verdict.status,
        with_interval(figures.throughput_fps, figures.throughput),
        ms_with_interval(group.latency_ms(stat), figures.latency.get(stat)),
    ]


def cheapest_line(spot: SweetSpot, c: Comparison, threshold: float | None, stat: str) -> str:
    """'cheapest per inference under 5 ms (median): B NAME CONFIG: 0.23 (0.22-0.24) per
    million inferences, ...', then the configurations within noise of it (their cost
    intervals overlap); each a configuration's repetitions combined."""
    under = f" under {threshold:g} ms ({stat})" if threshold is not None else ""
    close = ", ".join(
        f"{x.side} {c.name(x.side)} {x.group.config.label()} {cost_with_interval(x)}"
        for x in spot.within_noise
    )
    return (
        f"cheapest per inference{under}: {spot.side} {c.name(spot.side)} "
        f"{spot.group.config.label()}: {cost_with_interval(spot.best)} per million inferences, "
        f"{_figures_text(spot.best, stat)}\n"
        + (
            f"  within noise of it (cost intervals overlap): {close}"
            if close
            else "  no other priced configuration's cost interval overlaps it"
        )
    )


def cheapest_document(c: Comparison, spot: SweetSpot | None) -> dict[str, Any] | None:
    """The cheapest configuration and those within noise of it (their cost intervals
    overlap), each with its combined figures."""
    if spot is None:
        return None
    return {
        **_cost_entry(c, spot.best),
        "within_noise": [_cost_entry(c, x) for x in spot.within_noise],
    }


def _cost_entry(c: Comparison, found: Candidate) -> dict[str, Any]:
    interval = cost_interval(found.group)
    return {
        **_configuration(c, found),
        "run_id": found.run.id,
        "cost_per_million": found.cost,
        "cost_ci": list(interval) if interval else None,
    }
