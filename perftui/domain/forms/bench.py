"""Benchmark settings as text (the CLI's flags, the dashboard's fields) and the one builder
that turns them into a BenchmarkRequest, so the same settings give the same runs wherever they
are typed.

Each field is one string as a person typed it; `FORM` (perftui.domain.forms.fields) says what is
wrong with a field in one line. The rules of the matrix (sync runs once whatever the request
counts; an empty or "auto" hint follows the api) are perftui.domain.settings.expand_matrix's.
A time of 0 is allowed: the iterations (always at least 1) are then the whole stop condition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from perftui.domain import settings
from perftui.domain.errors import InputError
from perftui.domain.forms.fields import (
    FieldError,
    Form,
    Parser,
    duration,
    seconds,
    whole_number,
)
from perftui.domain.forms.options import parse_shapes
from perftui.domain.records import (
    BenchmarkRequest,
    Budget,
    Project,
    RunConfig,
)
from perftui.domain.traffic.arrivals import ARRIVALS

if TYPE_CHECKING:
    from perftui.domain.capabilities import Capabilities


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    default: str
    help: str
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
    *(FieldSpec(s.name, s.title, s.default, s.help, s.placeholder) for s in settings.TYPED),
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


MOST_TIME_S = 30 * 86400
MOST_ITERATIONS = 10**9
MOST_WARMUP = MOST_PROFILE_ITERATIONS = 10**7
MOST_REPEAT = 1000
LONG_S = 3600
"""A benchmark measured for longer than this (at the least) gets a warning, not a refusal."""


def _preset(**chosen: str) -> dict[str, str]:
    """The settings `chosen`, and those the hint picks left to it (their default, "auto")."""
    return {
        s.name: chosen.get(s.name, s.default)
        for s in settings.TYPED
        if s.name in chosen or s.by_hint
    }


PRESETS: dict[str, dict[str, str]] = {
    # OpenVINO latency tricks: one request at a time, batch 1, the LATENCY hint.
    "latency": _preset(batch="1", hint="latency", api="sync"),
    # OpenVINO throughput tricks: a bigger batch, the THROUGHPUT hint, async requests.
    "throughput": _preset(batch="1,4", hint="throughput", api="async"),
}


def _setting(setting: settings.Setting, capabilities: Capabilities | None) -> Parser:
    return lambda text: settings.parse(setting, text, capabilities)


def form(capabilities: Capabilities | None = None) -> Form:
    """The fields' parsers; with an engine's `capabilities`, the settings refuse what that
    engine cannot honour."""
    return Form(
        {
            **{s.name: _setting(s, capabilities) for s in settings.TYPED},
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


def check_field(name: str, text: str, capabilities: Capabilities | None = None) -> str | None:
    """Why a field cannot be used as typed (for a project on that engine), or None."""
    return form(capabilities).check(name, text)


def form_errors(
    values: Mapping[str, str], capabilities: Capabilities | None = None
) -> dict[str, str]:
    return form(capabilities).errors(values)


def _configs(v: Mapping[str, Any]) -> tuple[RunConfig, ...]:
    axes = {s.name: v[s.name] for s in settings.TYPED}
    return settings.expand_matrix(axes | {"dims": v["shapes"].points()})


def build_request(
    project: Project,
    values: Mapping[str, str],
    *,
    capabilities: Capabilities | None = None,
    profile: bool = False,
    seed: int = 0,
    data: str | None = None,
) -> BenchmarkRequest:
    """The request the settings describe (the CLI's and the dashboard's one builder), checked
    against the engine's `capabilities` where given; FieldError naming the first invalid
    field. The repeats are the `repeat` field's."""
    v = form(capabilities).parse_all(values)
    if v["rate"] == [None] and v["arrival"] != [ARRIVALS[0]]:  # would be dropped unsaid
        raise FieldError(
            "arrival", "arrivals are for runs at a rate: give a rate too, e.g. 100,200"
        )
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
    budget = request.budget
    windows = (
        budget.time_s if c.rate is None else budget.window_at(c.rate) for c in request.configs
    )
    least = sum(windows) * request.repeat
    if least <= LONG_S:
        return None
    return f"this benchmark measures for at least {duration(least)}"


def form_from_request(request: BenchmarkRequest) -> dict[str, str]:
    """The form fields that reproduce a stored request (its configs as lists)."""
    configs = request.configs or (RunConfig(),)
    budget = request.budget
    return {
        **settings.as_text(configs),
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
