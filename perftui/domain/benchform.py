"""Benchmark settings as text (the CLI's flags, the dashboard's fields) and the one builder
that turns them into a BenchmarkRequest, so the same settings give the same runs wherever they
are typed.

Each field is one string as a person typed it; `FORM` (perftui.domain.fields) says what is
wrong with a field in one line. The rules of the matrix (sync runs once whatever the request
counts; an empty or "auto" hint follows the api) are perftui.domain.options.expand_matrix's.
A time of 0 is allowed: the iterations (always at least 1) are then the whole stop condition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.fields import FieldError, Form, seconds, whole_number
from perftui.domain.options import (
    default_hint,
    expand_matrix,
    parse_choices,
    parse_hints,
    parse_int_or_auto,
    parse_positive_ints,
    parse_precision,
    parse_shapes,
)
from perftui.domain.records import (
    APIS,
    HINTS,
    BenchmarkRequest,
    Budget,
    Project,
    RunConfig,
)


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    default: str
    hint: str
    """What the field takes, shown next to it while it is valid."""
    placeholder: str = ""
    """Shown inside the empty field."""


FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("batch", "Batch sizes", "1", "e.g. 1,4,8"),
    FieldSpec("threads", "Threads", "auto", "auto or e.g. 1,2,4"),
    FieldSpec("streams", "Streams", "auto", "auto or e.g. 1,2"),
    FieldSpec("requests", "Requests", "auto", "auto or e.g. 4"),
    FieldSpec("hint", "Hint", "auto", ", ".join(HINTS), "auto: by API"),
    FieldSpec("api", "API", "sync", "sync, async"),
    FieldSpec(
        "precision", "Precision", "", "empty for the engine's default, or f32, bf16, f16", "default"
    ),
    FieldSpec("time", "Time (s)", "10", "minimum seconds per run"),
    FieldSpec("iterations", "Iterations", "100", "minimum requests per run"),
    FieldSpec("warmup", "Warm-up", "10", "requests not counted"),
    FieldSpec("profile_iterations", "Profile iters", "50", "requests in the profile pass"),
    FieldSpec("shapes", "Shapes", "", "e.g. seq=128, seq=64,128 or input_ids[1,128]", "none"),
)
FIELD_NAMES = tuple(spec.name for spec in FIELDS)
DEFAULTS: dict[str, str] = {spec.name: spec.default for spec in FIELDS}

REPEAT_DEFAULT = 1
"""Measurements of each configuration when nobody says: one, as before repeats existed, and
the cheapest. Its throughput interval then covers the noise within the run only."""
REPEAT_SUGGESTED = 3
"""For a comparison: three fresh workers per configuration give an interval that holds the
noise between processes too (a t-interval over two would be 4.5 times as wide as over three)."""

PRESETS: dict[str, dict[str, str]] = {
    # OpenVINO latency tricks: one request at a time, batch 1, the LATENCY hint.
    "latency": {
        "batch": "1",
        "streams": "auto",
        "requests": "auto",
        "hint": "latency",
        "api": "sync",
    },
    # OpenVINO throughput tricks: a bigger batch, the THROUGHPUT hint, async requests.
    "throughput": {
        "batch": "1,4",
        "streams": "auto",
        "requests": "auto",
        "hint": "throughput",
        "api": "async",
    },
}


def _threads(text: str) -> list[int]:
    """'auto' is 0, the engine's own default."""
    items = [item.strip() for item in text.split(",")]
    cleaned = ",".join("0" if item.lower() == "auto" else item for item in items)
    return parse_positive_ints(cleaned, "threads", allow_zero=True)


FORM = Form(
    {
        "batch": lambda t: parse_positive_ints(t, "batch sizes"),
        "threads": _threads,
        "streams": lambda t: parse_int_or_auto(t, "streams"),
        "requests": lambda t: parse_int_or_auto(t, "requests"),
        "hint": parse_hints,
        "api": lambda t: parse_choices(t, "api", APIS),
        "precision": parse_precision,
        "time": lambda t: seconds(t, "time"),
        "iterations": lambda t: whole_number(t, "iterations"),
        "warmup": lambda t: whole_number(t, "warm-up requests", least=0),
        "profile_iterations": lambda t: whole_number(t, "profile iterations"),
        "shapes": lambda t: parse_shapes([t]),
    },
    DEFAULTS,
)
parse_field = FORM.parse
check_field = FORM.check
form_errors = FORM.errors


def _configs(v: Mapping[str, Any]) -> tuple[RunConfig, ...]:
    return expand_matrix(
        v["batch"],
        v["threads"],
        v["streams"],
        v["requests"],
        v["hint"],
        v["api"],
        v["precision"],
        v["shapes"].points(),
    )


def matrix_size(values: Mapping[str, str]) -> int | None:
    """How many runs the settings expand into, or None while a matrix field is invalid."""
    names = ("batch", "threads", "streams", "requests", "hint", "api", "precision", "shapes")
    try:
        return len(_configs(FORM.parse_all(values, names)))
    except FieldError:
        return None


def build_request(
    project: Project,
    values: Mapping[str, str],
    *,
    profile: bool = False,
    seed: int = 0,
    data: str | None = None,
    repeat: str = str(REPEAT_DEFAULT),
) -> BenchmarkRequest:
    """The request the settings describe (the CLI's and the dashboard's one builder);
    FieldError naming the first invalid field. `repeat` is text as typed (REPEAT_DEFAULT)."""
    v = FORM.parse_all(values)
    try:
        repeats = whole_number(repeat, "measurements of each configuration")
    except InputError as error:
        raise FieldError("repeat", str(error)) from None
    budget = Budget(
        time_s=v["time"],
        iterations=v["iterations"],
        warmup=v["warmup"],
        profile_iterations=v["profile_iterations"],
    )
    return BenchmarkRequest(
        project=project,
        configs=_configs(v),
        budget=budget,
        shapes=v["shapes"],
        profile=profile,
        seed=seed,
        data=data,
        repeat=repeats or REPEAT_DEFAULT,
    )


def _join(values: list[Any]) -> str:
    return ",".join(str(v) for v in values)


def form_from_request(request: BenchmarkRequest) -> dict[str, str]:
    """The form fields that reproduce a stored request (its configs as lists)."""
    configs = request.configs or (RunConfig(),)

    def distinct(attr: str, among: Sequence[RunConfig] = configs) -> list[Any]:
        return list(dict.fromkeys(getattr(c, attr) for c in among))

    threads = ["auto" if t == 0 else t for t in distinct("threads")]
    hints = distinct("hint")
    if len(hints) > 1 and all(c.hint == default_hint(c.api) for c in configs):
        hints = ["auto"]  # each api its own default, as typed
    # sync runs once whatever the request counts: they are the async runs'
    requests = distinct("requests", [c for c in configs if c.api == "async"] or configs)
    precision = next((c.precision for c in configs if c.precision), "") or ""
    budget = request.budget
    return {
        "batch": _join(distinct("batch")),
        "threads": _join(threads),
        "streams": _join(distinct("streams")),
        "requests": _join(requests),
        "hint": _join(hints),
        "api": _join(distinct("api")),
        "precision": precision,
        "time": f"{budget.time_s:g}",
        "iterations": str(budget.iterations),
        "warmup": str(budget.warmup),
        "profile_iterations": str(budget.profile_iterations),
        "shapes": request.shapes.text(),
    }


def rerun_request(
    original: BenchmarkRequest | None, project: Project, config: RunConfig
) -> BenchmarkRequest:
    """A request that measures one run's config again, with its benchmark's budget, shapes and
    profiling when the benchmark is known (else the defaults)."""
    if original is None:
        return BenchmarkRequest(project=project, configs=(config,))
    return replace(original, project=project, configs=(config,))
