"""`perftui show PROJECT --layers`: a profiled run's layers and layer types with their time,
precision, theoretical FLOPs at the run's own input shapes, and the GFLOP/s they achieved."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from perftui.cli.common import CliError
from perftui.cli.textfmt import table
from perftui.domain.model.model_info import FLOPS_CONVENTION
from perftui.domain.model.shapes import shapes_text

if TYPE_CHECKING:
    from perftui.domain.model.model_info import ModelInfo
    from perftui.domain.model.profile import LayerRow, LayerTypeRow
    from perftui.domain.records import Project, RunResult

TOP = 25
"""Layers printed by time (the JSON has them all)."""


def profiled_run(runs: Sequence[RunResult], run_id: str | None) -> RunResult:
    """The run asked for (an id or its prefix), else the newest profiled; CliError when there
    is none with a profile."""
    from perftui.domain.model.profile import latest_profiled

    if run_id:
        found = [r for r in runs if r.id.startswith(run_id)]
        if len(found) != 1:
            raise CliError(f"--run {run_id!r} names {len(found)} runs of this project; give its id")
        if not found[0].layers:
            raise CliError(f"run {found[0].id[:8]} has no layer profile; bench with --profile")
        return found[0]
    run = latest_profiled(runs)
    if run is None:
        raise CliError("no run of this project has a layer profile; bench it with --profile")
    return run


def inspected_at(project: Project, run: RunResult) -> tuple[ModelInfo | None, str]:
    """The model inspected at the run's input shapes, or None and why not."""
    from perftui.domain.errors import InputError
    from perftui.inspection import inspect_model

    shapes = (run.resolved or {}).get("shapes") or None
    try:
        return inspect_model(project.model, shapes), ""
    except (InputError, OSError, ValueError) as exc:
        return None, f"FLOPs unknown: the model could not be inspected ({exc})"


def _gflops(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def _flops(value: int | None) -> str:
    return "-" if value is None else f"{value / 1e6:,.1f} M"


TypeFigures = tuple["LayerTypeRow", int | None, float | None]
"""A layer type, its FLOPs and the GFLOP/s it achieved (None where unknown)."""


def _figures(run: RunResult, info: ModelInfo | None) -> tuple[list[LayerRow], list[TypeFigures]]:
    """The run's layers with their FLOPs, and its layer types with theirs."""
    from perftui.domain.model.profile import (
        achieved_gflops,
        flops_by_type,
        layer_rows,
        layer_type_summary,
    )

    rows = layer_rows(run.layers or (), info.node_flops if info else None)
    by_type = flops_by_type(rows)
    types = [
        (t, by_type.get(t.type), achieved_gflops(by_type.get(t.type), t.time_ms))
        for t in layer_type_summary(run.layers or ())
    ]
    return rows, types


def layers_document(run: RunResult, info: ModelInfo | None, why: str) -> dict[str, Any]:
    """The `show --layers --json` document."""
    rows, types = _figures(run, info)
    return {
        "run": run.id,
        "flops_shapes": {k: list(v) for k, v in info.flops_shapes.items()} if info else None,
        "flops_convention": FLOPS_CONVENTION,
        "flops_unknown_reason": why or None,
        "layers": [_layer(row) for row in rows],
        "layer_types": [
            {
                "type": t.type,
                "time_ms": t.time_ms,
                "share": t.share,
                "layers": t.layers,
                "precisions": t.precisions,
                "flops": flops,
                "gflops_per_s": gflops,
            }
            for t, flops, gflops in types
        ],
    }


def _layer(row: LayerRow) -> dict[str, Any]:
    return {
        "name": row.name,
        "type": row.type,
        "precision": row.precision,
        "status": row.status,
        "time_ms": row.time_ms,
        "share": row.share,
        "flops": row.flops,
        "gflops_per_s": row.gflops_per_s,
    }


def layers_text(run: RunResult, info: ModelInfo | None, why: str) -> str:
    """The layer types, then the slowest layers, each with FLOPs and GFLOP/s."""
    from perftui.domain.charts.series import short_label

    rows, types = _figures(run, info)
    if info is not None:
        at = shapes_text(info.flops_shapes)
        head = f"FLOPs ({FLOPS_CONVENTION}) at the run's shapes {at}"
    else:
        head = why
    lines = [f"profile of run {run.id[:8]} ({short_label(run.config)}); {head}", ""]
    type_rows = [
        [
            t.type,
            f"{t.time_ms:.3f}",
            f"{100 * t.share:.1f}%",
            str(t.layers),
            " ".join(f"{n} {p}" for p, n in sorted(t.precisions.items())),
            _flops(flops),
            _gflops(gflops),
        ]
        for t, flops, gflops in types
    ]
    headers = ("type", "ms", "share", "layers", "precisions", "FLOPs", "GFLOP/s")
    lines.append(table(headers, type_rows, right={1, 2, 3, 5, 6}))
    layer_cells = [
        [
            row.name,
            row.type,
            row.precision or "-",
            f"{row.time_ms:.3f}",
            f"{100 * row.share:.1f}%",
            _flops(row.flops),
            _gflops(row.gflops_per_s),
        ]
        for row in rows[:TOP]
    ]
    lines += ["", f"slowest {min(TOP, len(rows))} of {len(rows)} layers:"]
    headers = ("layer", "type", "precision", "ms", "share", "FLOPs", "GFLOP/s")
    lines.append(table(headers, layer_cells, right={3, 4, 5, 6}))
    return "\n".join(lines)
