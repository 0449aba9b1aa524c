"""The benchmark settings form as text fields: per-field validation, presets, and the request
they describe.

The dashboard's configuration screen keeps one string per field (what the person typed);
these functions say what is wrong with a field (one line, from perftui.domain.options) and
turn a valid form into a BenchmarkRequest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.options import (
    expand_matrix,
    parse_choices,
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


class FieldError(InputError):
    """An InputError that belongs to one field of the form."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


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
    FieldSpec("hint", "Hint", "latency", ", ".join(HINTS)),
    FieldSpec("api", "API", "sync", "sync, async"),
    FieldSpec(
        "precision", "Precision", "", "empty for the engine's default, or f32, bf16, f16", "default"
    ),
    FieldSpec("time", "Time (s)", "10", "minimum seconds per run"),
    FieldSpec("iterations", "Iterations", "100", "minimum requests per run"),
    FieldSpec("warmup", "Warm-up", "10", "requests not counted"),
    FieldSpec("profile_iterations", "Profile iters", "50", "requests in the profile pass"),
    FieldSpec("shapes", "Shapes", "", "dynamic inputs, e.g. input_ids[1,128]", "none"),
)
FIELD_NAMES = tuple(spec.name for spec in FIELDS)
DEFAULTS: dict[str, str] = {spec.name: spec.default for spec in FIELDS}

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
    items = [item.strip() for item in text.split(",")]
    cleaned = ",".join("0" if item.lower() == "auto" else item for item in items)
    return parse_positive_ints(cleaned, "threads", allow_zero=True)


def _positive_float(text: str, what: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise InputError(
            f"{what} {text.strip()!r} is not a number; give seconds, e.g. 10"
        ) from None
    if not value > 0 or value != value or value == float("inf"):
        raise InputError(f"{what} must be a number of seconds > 0")
    return value


def _one_int(text: str, what: str, *, allow_zero: bool = False) -> int:
    if not text.strip():
        raise InputError(f"{what} is empty; give a whole number >= {0 if allow_zero else 1}")
    values = parse_positive_ints(text, what, allow_zero=allow_zero)
    if len(values) != 1:
        raise InputError(f"{what} takes one whole number, not a list")
    return values[0]


def _shapes(text: str) -> dict[str, tuple[int, ...]]:
    return parse_shapes([text]) if text.strip() else {}


_PARSERS: dict[str, Callable[[str], Any]] = {
    "batch": lambda t: parse_positive_ints(t, "batch sizes"),
    "threads": _threads,
    "streams": lambda t: parse_int_or_auto(t, "streams"),
    "requests": lambda t: parse_int_or_auto(t, "requests"),
    "hint": lambda t: parse_choices(t, "hint", HINTS),
    "api": lambda t: parse_choices(t, "api", APIS),
    "precision": parse_precision,
    "time": lambda t: _positive_float(t, "time"),
    "iterations": lambda t: _one_int(t, "iterations"),
    "warmup": lambda t: _one_int(t, "warm-up", allow_zero=True),
    "profile_iterations": lambda t: _one_int(t, "profile iterations"),
    "shapes": _shapes,
}


def parse_field(name: str, text: str) -> Any:
    """The parsed value of one field; FieldError with the reason."""
    try:
        return _PARSERS[name](text)
    except InputError as error:
        raise FieldError(name, str(error)) from None


def check_field(name: str, text: str) -> str | None:
    """The reason a field is invalid, or None."""
    try:
        parse_field(name, text)
    except FieldError as error:
        return str(error)
    return None


def form_errors(values: Mapping[str, str]) -> dict[str, str]:
    """Reason per invalid field (missing fields count as their defaults)."""
    errors = {}
    for name in FIELD_NAMES:
        reason = check_field(name, values.get(name, DEFAULTS[name]))
        if reason:
            errors[name] = reason
    return errors


def matrix_size(values: Mapping[str, str]) -> int | None:
    """How many runs the form expands into, or None while a matrix field is invalid."""
    size = 1
    for name in ("batch", "threads", "streams", "requests", "hint", "api"):
        try:
            size *= len(parse_field(name, values.get(name, DEFAULTS[name])))
        except FieldError:
            return None
    return size


def build_request(
    project: Project, values: Mapping[str, str], *, profile: bool = False, seed: int = 0
) -> BenchmarkRequest:
    """The request the form describes; FieldError naming the first invalid field."""
    v = {name: parse_field(name, values.get(name, DEFAULTS[name])) for name in FIELD_NAMES}
    configs = expand_matrix(
        v["batch"], v["threads"], v["streams"], v["requests"], v["hint"], v["api"], v["precision"]
    )
    budget = Budget(
        time_s=v["time"],
        iterations=v["iterations"],
        warmup=v["warmup"],
        profile_iterations=v["profile_iterations"],
    )
    return BenchmarkRequest(
        project=project,
        configs=configs,
        budget=budget,
        shapes=v["shapes"],
        profile=profile,
        seed=seed,
    )


def _join(values: list[Any]) -> str:
    return ",".join(str(v) for v in values)


def form_from_request(request: BenchmarkRequest) -> dict[str, str]:
    """The form fields that reproduce a stored request (its configs as lists)."""
    configs = request.configs or (RunConfig(),)

    def distinct(attr: str) -> list[Any]:
        return list(dict.fromkeys(getattr(c, attr) for c in configs))

    threads = ["auto" if t == 0 else t for t in distinct("threads")]
    shapes = ",".join(
        f"{name}[{','.join(str(d) for d in dims)}]" for name, dims in request.shapes.items()
    )
    precision = next((c.precision for c in configs if c.precision), "") or ""
    budget = request.budget
    return {
        "batch": _join(distinct("batch")),
        "threads": _join(threads),
        "streams": _join(distinct("streams")),
        "requests": _join(distinct("requests")),
        "hint": _join(distinct("hint")),
        "api": _join(distinct("api")),
        "precision": precision,
        "time": f"{budget.time_s:g}",
        "iterations": str(budget.iterations),
        "warmup": str(budget.warmup),
        "profile_iterations": str(budget.profile_iterations),
        "shapes": shapes,
    }


def rerun_request(
    stored: Mapping[str, Any] | None, project: Project, config: RunConfig
) -> BenchmarkRequest:
    """A request that measures one run's config again, with its benchmark's budget, shapes and
    profiling when the benchmark is known (else the defaults)."""
    if stored:
        try:
            original = BenchmarkRequest.from_dict(dict(stored))
        except (KeyError, TypeError, ValueError):
            original = None
        if original is not None:
            return BenchmarkRequest(
                project=project,
                configs=(config,),
                budget=original.budget,
                shapes=original.shapes,
                profile=original.profile,
                seed=original.seed,
            )
    return BenchmarkRequest(project=project, configs=(config,))
