"""Benchmark settings as text (the CLI's flags, the dashboard's fields) and the one builder
that turns them into a BenchmarkRequest, so the same settings give the same runs wherever they
are typed.

Each field is one string as a person typed it; `FORM` (perftui.domain.forms.fields) says what is
wrong with a field in one line. The rules of the matrix (sync runs once whatever the request
counts; an empty or "auto" hint follows the api) are perftui.domain.forms.options.expand_matrix's.
A time of 0 is allowed: the iterations (always at least 1) are then the whole stop condition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.forms.fields import (
    Form,
    at_most,
    duration,
    seconds,
    whole_number,
)
from perftui.domain.forms.options import (
    default_hint,
    expand_matrix,
    parse_choices,
    parse_hints,
    parse_int_or_auto,
    parse_positive_ints,
    parse_shapes,
)
from perftui.domain.limits import MAX_BATCH
from perftui.domain.records import (
    APIS,
    HINTS,
    PRECISIONS,
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
    cli: str = ""
    """The flag when it is not --NAME (`perftui bench`)."""

    @property
    def flag(self) -> str:
        return self.cli or "--" + self.name.replace("_", "-")


REPEAT_DEFAULT = 1
"""Measurements of each configuration when nobody says: one, as before repeats existed, and
the cheapest. Its throughput interval then covers the noise within the run only."""
REPEAT_SUGGESTED = 3
"""For a comparison: three fresh workers per configuration give an interval that holds the
noise between processes too (a t-interval over two would be 4.5 times as wide as over three)."""
MEASURE_ROUNDS = 10
"""Rounds `perftui compare --measure` runs by default (perftui.domain.compare.pairing): two
fresh workers differ by more than a longer run averages away, so rounds narrow B/A and run
length does not (benchmarks/README.md, noise.py)."""
MEASURE_TIME_S = 2.0
"""Timed seconds of each run of `compare --measure` (its runs' benchmarks' iterations and
warm-up still apply): ten 2 s rounds a side cost less than five of the default 10 s."""

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
    FieldSpec(
        "repeat",
        "Repeat",
        str(REPEAT_DEFAULT),
        f"per configuration, {REPEAT_SUGGESTED} or more to compare",
    ),
    FieldSpec(
        "shapes", "Shapes", "", "e.g. seq=128, seq=64,128 or input_ids[1,128]", "none", "--shape"
    ),
)
FIELD_NAMES = tuple(spec.name for spec in FIELDS)
DEFAULTS: dict[str, str] = {spec.name: spec.default for spec in FIELDS}
LABELS: dict[str, str] = {spec.flag: spec.label for spec in FIELDS} | {
    "--engine": "Engine",
    "--device": "Device",
    "--project": "Name",
}
"""What the dashboard calls the settings the CLI names by flag."""


MOST_THREADS = MOST_IN_FLIGHT = 1024
"""More threads, streams or requests than any machine runs at once: a typing slip."""
MOST_TIME_S = 30 * 86400
MOST_ITERATIONS = 10**9
MOST_WARMUP = MOST_PROFILE_ITERATIONS = 10**7
MOST_REPEAT = 1000
LONG_S = 3600
"""A benchmark measured for longer than this (at the least) gets a warning, not a refusal."""

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


def _bounded(values: list[Any], most: int, what: str) -> list[Any]:
    for value in values:
        if isinstance(value, int):
            at_most(value, most, what)
    return values


def _threads(text: str) -> list[int]:
    """'auto' is 0, the engine's own default."""
    items = [item.strip() for item in text.split(",")]
    cleaned = ",".join("0" if item.lower() == "auto" else item for item in items)
    return _bounded(
        parse_positive_ints(cleaned, "threads", allow_zero=True), MOST_THREADS, "threads"
    )


def _precision(text: str, engine: str | None) -> str | None:
    """One precision (a benchmark has one; run it again for another); ONNX Runtime runs the
    model's own, so it takes f32 (or nothing) only."""
    values = parse_choices(text, "precision", PRECISIONS) if text.strip() else []
    if len(values) > 1:
        raise InputError("one precision, not a list; benchmark again for another")
    precision = values[0] if values else None
    if engine == "onnxruntime" and precision not in (None, "f32"):
        raise InputError(
            f"{precision} needs the openvino engine; onnxruntime runs the model's own precision"
        )
    return precision


def form(engine: str | None = None) -> Form:
    """The settings' parsers; with `engine`, those that depend on it (precision) know it."""
    return Form(
        {
            "batch": lambda t: _bounded(parse_positive_ints(t, "batch sizes"), MAX_BATCH, "batch"),
            "threads": _threads,
            "streams": lambda t: _bounded(
                parse_int_or_auto(t, "streams"), MOST_IN_FLIGHT, "streams"
            ),
            "requests": lambda t: _bounded(
                parse_int_or_auto(t, "requests"), MOST_IN_FLIGHT, "requests"
            ),
            "hint": parse_hints,
            "api": lambda t: parse_choices(t, "api", APIS),
            "precision": lambda t: _precision(t, engine),
            "time": lambda t: seconds(t, "time", most=MOST_TIME_S),
            "iterations": lambda t: whole_number(t, "iterations", most=MOST_ITERATIONS),
            "warmup": lambda t: whole_number(t, "warm-up requests", least=0, most=MOST_WARMUP),
            "profile_iterations": lambda t: whole_number(
                t, "profile iterations", most=MOST_PROFILE_ITERATIONS
            ),
            "repeat": lambda t: whole_number(
                t, "measurements of each configuration", most=MOST_REPEAT
            ),
            "shapes": lambda t: parse_shapes([t]),
        },
        DEFAULTS,
    )


FORM = form()


def check_field(name: str, text: str, engine: str | None = None) -> str | None:
    """Why a field cannot be used as typed (for a project on `engine`), or None."""
    return form(engine).check(name, text)


def form_errors(values: Mapping[str, str], engine: str | None = None) -> dict[str, str]:
    return form(engine).errors(values)


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


def build_request(
    project: Project,
    values: Mapping[str, str],
    *,
    profile: bool = False,
    seed: int = 0,
    data: str | None = None,
) -> BenchmarkRequest:
    """The request the settings describe (the CLI's and the dashboard's one builder);
    FieldError naming the first invalid field. The repeats are the `repeat` field's."""
    v = form(project.engine).parse_all(values)
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
        repeat=v["repeat"],
    )


TARGETS_HINT = "this machine (local) and/or targets, e.g. local,box: each at once"


def parse_targets(text: str, known: Sequence[str] | None = None) -> list[str]:
    """The hosts of a targets list (`local,box`), in order (the CLI's --target and the form's
    Targets); InputError for an empty name, a name given twice or, given `known`, one not
    in it."""
    hosts = [host.strip() for host in text.split(",")]
    if not all(hosts):
        raise InputError(f"{text!r}: give target names separated by commas, e.g. local,box")
    twice = next((host for i, host in enumerate(hosts) if host in hosts[:i]), None)
    if twice is not None:
        raise InputError(f"target {twice!r} is named twice in {text!r}; name each host once")
    unknown = [host for host in hosts if known is not None and host not in known]
    if unknown:
        raise InputError(f"no target named {unknown[0]!r}; known: {', '.join(known or [])}")
    return hosts


def long_warning(request: BenchmarkRequest) -> str | None:
    """A line when the benchmark measures for longer than LONG_S at the least, else None."""
    least = request.budget.time_s * len(request.configs) * request.repeat
    if least <= LONG_S:
        return None
    return f"this benchmark measures for at least {duration(least)}"


def _join(values: list[Any]) -> str:
    return ",".join(str(v) for v in values)


def form_from_request(request: BenchmarkRequest) -> dict[str, str]:
    """The form fields that reproduce a stored request (its configs as lists)."""
    configs = request.configs or (RunConfig(),)

    def distinct(attr: str, among: Sequence[RunConfig] = configs) -> list[Any]:
        return list(dict.fromkeys(getattr(c, attr) for c in among))

    threads = ["auto" if t == 0 else t for t in distinct("threads")]
    hints = distinct("hint")
    if all(c.hint == default_hint(c.api) for c in configs):
        # each api its own default: "auto" builds these runs, as typed (so does the api's
        # own hint named, which builds the very same request)
        hints = ["auto"]
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
        "time": repr(float(budget.time_s)).removesuffix(".0"),  # every digit: 1234567 s
        "iterations": str(budget.iterations),
        "warmup": str(budget.warmup),
        "profile_iterations": str(budget.profile_iterations),
        "repeat": str(request.repeat),
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
