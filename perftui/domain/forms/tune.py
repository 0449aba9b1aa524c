"""A tune's settings typed as text -> one TuneSpec, for `perftui tune` and the dashboard's
tune form alike: the same fields, the same parsers (perftui.domain.forms.fields), the same search.

A bad field is a FieldError naming it; the CLI says `--<field>`, the form shows it under
the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import InputError
from perftui.domain.forms.bench import FORM
from perftui.domain.forms.fields import FieldError, Form, whole_number
from perftui.domain.limits import check_here, parse_memory_limit
from perftui.domain.measurement.statistic import LATENCY_NAMES
from perftui.domain.model.shapes import ShapeBindings
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.domain.tune.result import Limits, default_trials, patience

if TYPE_CHECKING:
    from perftui.domain.capabilities import Capabilities

from perftui.domain.tune.space import (
    candidates,
    default_space,
    parse_duration,
    parse_latency_ms,
    parse_space,
)

DEFAULT_BUDGET = "10m"
"""The search's time when neither a time budget nor a trial count is given."""


def _stat(text: str) -> str:
    if text.strip() not in LATENCY_NAMES:
        raise InputError(f"{text.strip()!r} is not one of {', '.join(LATENCY_NAMES)}")
    return text.strip()


def _duration(text: str) -> float | None:
    return parse_duration(text) if text.strip() else None


TUNE_FORM = Form(
    {
        "max_latency": parse_latency_ms,
        "max_memory": lambda t: parse_memory_limit(t) if t.strip() else None,
        "stat": _stat,
        "budget": _duration,
        "trials": lambda t: whole_number(t, "trials", optional=True),
        "space": lambda t: t,  # checked with the engine and the cores by `tune_spec`
        "time": FORM.parsers["time"],
        "iterations": FORM.parsers["iterations"],
        "warmup": FORM.parsers["warmup"],
        "shapes": FORM.parsers["shapes"],
    },
    {
        "max_latency": "",
        "max_memory": "",
        "stat": "p90",
        "budget": "",
        "trials": "",
        "space": "",
        "time": "3",
        "iterations": "50",
        "warmup": "5",
        "shapes": "",
    },
)
"""The tune's fields; the names are the CLI's flags (`max_latency` is `--max-latency`,
`max_memory` is `--max-memory`, `shapes` is `--shape`)."""


@dataclass(frozen=True)
class TuneSpec:
    """Everything a search needs: the request its trials share, the candidates, the budget's
    statistic and value, and when to stop. It travels to the tune child as JSON."""

    request: BenchmarkRequest
    candidates: tuple[RunConfig, ...]
    stat: str
    budget_ms: float
    limits: Limits
    max_memory_mib: float | None = None
    """A limit on each trial's memory peak, in MiB (None: none)."""

    def to_dict(self) -> dict[str, Any]:
        limits = self.limits
        return {
            "request": self.request.to_dict(),
            "candidates": [c.to_dict() for c in self.candidates],
            "stat": self.stat,
            "budget_ms": self.budget_ms,
            "limits": [limits.trials, limits.budget_s, limits.patience],
            "max_memory_mib": self.max_memory_mib,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TuneSpec:
        trials, budget_s, wait = data["limits"]
        return cls(
            BenchmarkRequest.from_dict(data["request"]),
            tuple(RunConfig.from_dict(c) for c in data["candidates"]),
            str(data["stat"]),
            float(data["budget_ms"]),
            Limits(trials, budget_s, int(wait)),
            None if data.get("max_memory_mib") is None else float(data["max_memory_mib"]),
        )


TUNE_ELSEWHERE = "tune a project of the same model made on this machine"
"""What to do instead of tuning a project measured on another host."""


def tune_spec(
    values: Mapping[str, str],
    project: Project,
    capabilities: Capabilities,
    last_shapes: ShapeBindings | None,
    cores: int,
    seed: int = 0,
) -> TuneSpec:
    """The search `values` (field -> text, missing ones their defaults) ask for on `project`
    (its engine's `capabilities`) with `cores` cores; the shapes default to `last_shapes` (the
    project's last benchmark). FieldError names the first bad field; InputError for a project
    on another host."""
    check_here(project, "tune", TUNE_ELSEWHERE)
    v = TUNE_FORM.parse_all(values)
    shapes = v["shapes"] if values.get("shapes", "").strip() else None
    shapes = shapes or last_shapes or v["shapes"]
    points = shapes.points()
    if len(points) != 1:
        raise FieldError("shapes", "give one value per dimension; tune one shape at a time")
    try:
        space = parse_space([v["space"]], default_space(capabilities, cores))
        found = candidates(space, cores, dims=points[0])
    except InputError as error:
        raise FieldError("space", str(error)) from None
    budget_s = v["budget"]
    if budget_s is None and v["trials"] is None:
        budget_s = parse_duration(DEFAULT_BUDGET)
    budget = Budget(time_s=v["time"], iterations=v["iterations"], warmup=v["warmup"])
    request = BenchmarkRequest(project, found, budget, shapes, seed=seed)
    trials = default_trials(len(found)) if v["trials"] is None else v["trials"]
    limits = Limits(trials=trials, budget_s=budget_s, patience=patience(len(found)))
    return TuneSpec(request, found, v["stat"], v["max_latency"], limits, v["max_memory"])
