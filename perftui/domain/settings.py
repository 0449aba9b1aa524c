"""The registry of benchmark settings: for each setting of a configuration (a RunConfig field),
how it is typed (its CLI flag and form field), parsed and checked, how a label, a "settings
differ" note, the CSV export, an import's schema and the report write it, and how tune may vary
it. Every list of settings in perftui derives from `SETTINGS`, so a new setting is one entry
here, its RunConfig field and the engine that applies it.

Which engines take a setting is not here: it is the engine's own record
(perftui.domain.capabilities), which callers hand in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from perftui.domain.errors import InputError
from perftui.domain.forms.fields import at_most
from perftui.domain.forms.options import parse_choices, parse_int_or_auto, parse_positive_ints
from perftui.domain.limits import MAX_BATCH
from perftui.domain.records import APIS, AUTO, HINTS, PRECISIONS, RunConfig
from perftui.domain.traffic.arrivals import ARRIVALS, MAX_RATE, parse_rates

if TYPE_CHECKING:
    from perftui.domain.capabilities import Capabilities

LabelPart = tuple[str, str, bool]
"""(setting, text, quiet): quiet where the setting is a default a whole label leaves out
(no precision asked, the api's own hint); a label of what differs says it all the same."""
HINT_WORDS = {"latency": "lat", "throughput": "thr", "cumulative_throughput": "cum"}
"""How labels write a performance hint."""
API_HINT = {"sync": "latency", "async": "throughput"}
"""The hint `--hint auto` picks for each api: a label says a hint only when it is another."""
PINNINGS = (AUTO, "on", "off")
"""OpenVINO's ENABLE_CPU_PINNING: auto leaves it to the engine."""
MOST_THREADS = MOST_IN_FLIGHT = 1024
"""More threads, streams or requests than any machine runs at once: a typing slip."""
MOST_STORED = 65_536
"""The most threads, streams or requests an imported run may say it ran."""


@dataclass(frozen=True)
class Stored:
    """What an imported configuration may hold for a setting (perftui.exchange.schema)."""

    kind: Literal["count", "count_or_auto", "choice", "dims", "rate"]
    least: int = 0
    most: int = 0
    choices: tuple[str, ...] = ()
    optional: bool = False
    """None is a value too (no precision asked)."""


@dataclass(frozen=True)
class Setting:
    """One benchmark setting: each thing perftui does with it, in one place."""

    name: str
    """The RunConfig field, the form field and, as --NAME, the CLI flag."""
    title: str
    """The form field's label."""
    help: str
    """What the form field takes, shown beside it while it is valid."""
    cli_help: str
    default: str
    """The text typed where nothing is (CLI and form)."""
    parse: Callable[[str], list[Any]] | None
    """Text -> the values to measure (a matrix axis), InputError in one line; None: not typed
    in a field of its own (the dims are bound by --shape)."""
    label: Callable[[RunConfig], list[LabelPart]]
    reads: Callable[[Any], str]
    """How a "settings differ" note writes a value."""
    stored: Stored
    axis: int
    """How deep in the matrix its values nest (0: outermost; ties in registry order)."""
    placeholder: str = ""
    noted: str = ""
    """Its name in a "settings differ" note, where not `name`."""
    brief: tuple[str, ...] = ()
    """Label texts a chart's short label leaves out ('s:auto')."""
    within: Callable[[Sequence[Any], Mapping[str, Any]], Sequence[Any]] | None = None
    """The values it takes given the settings of outer axes (sync has one request)."""
    csv: Callable[[Any], Any] = lambda value: value
    report: Callable[[Any], str | None] | None = None
    """How the report's settings column writes a value; None: not there (the Config says it)."""
    text: Callable[[Sequence[RunConfig]], str] | None = None
    """The field's text that gives these configurations' values (default: them joined)."""
    tune: Callable[[Capabilities, int], str] | None = None
    """The values tune searches by default (given the engine and the cores); None: not a knob."""
    fits: Callable[[RunConfig, int], bool] | None = None
    """Whether a configuration's value is worth a tune trial on a machine of so many cores."""
    always_stored: bool = True
    """Stored (JSON) at its default too; a setting added later is stored only where it is set,
    so what was stored before it existed reads and writes the same."""
    by_hint: bool = False
    """Its default ("auto") is what OpenVINO's performance hint picks (the presets leave it
    to the hint)."""
    fits_rule: str = ""
    """`fits` in words, for a refusal ('{cores}' the cores)."""
    unused: str = ""
    """The form's note where the engine does not take it ('{engine}' its name)."""
    untaken: tuple[Any, ...] | None = None
    """The values an engine that does not take it accepts (the rest refused); None: any,
    ignored."""
    engine_check: Callable[[list[Any], Capabilities], None] | None = None
    """InputError for values this engine cannot honour, beyond `untaken`."""
    summary: Callable[[Any, Mapping[str, Any]], str] | None = None
    """How a run's summary writes it, given the asked value and what the engine reported it
    ran (a run's `resolved`); None: not in the summary."""

    def axis_values(self, values: Sequence[Any], chosen: Mapping[str, Any]) -> Sequence[Any]:
        return self.within(values, chosen) if self.within else values


def default_hint(api: str) -> str:
    """The hint a run gets when none is asked for: latency for sync, throughput for async."""
    return "throughput" if api == "async" else "latency"


def _bounded(values: list[Any], most: int, what: str) -> list[Any]:
    for value in values:
        if isinstance(value, int):
            at_most(value, most, what)
    return values


def _threads(text: str) -> list[int]:
    """'auto' is 0, the engine's own default."""
    items = [item.strip() for item in text.split(",")]
    cleaned = ",".join("0" if item.lower() == AUTO else item for item in items)
    return _bounded(
        parse_positive_ints(cleaned, "threads", allow_zero=True), MOST_THREADS, "threads"
    )


def _in_flight(what: str) -> Callable[[str], list[Any]]:
    return lambda text: _bounded(parse_int_or_auto(text, what), MOST_IN_FLIGHT, what)


def _hints(text: str) -> list[str | None]:
    """'latency,throughput' -> the hints; '' or 'auto' -> [None] (each api's default hint)."""
    if str(text).strip().lower() in ("", AUTO):
        return [None]
    return list(parse_choices(text, "hint", HINTS))


def _precision(text: str) -> list[str | None]:
    """One precision (a benchmark has one; run it again for another); [None]: the engine's."""
    values = parse_choices(text, "precision", PRECISIONS) if text.strip() else []
    if len(values) > 1:
        raise InputError("one precision, not a list; benchmark again for another")
    return [values[0] if values else None]


def _precision_on(values: list[str | None], capabilities: Capabilities) -> None:
    """ONNX Runtime runs the model's own precision: f32 (what every engine runs) or nothing."""
    asked = values[0]
    if asked not in (None, "f32", *capabilities.precisions):
        raise InputError(
            f"{asked} needs the openvino engine; {capabilities.engine} runs the model's own "
            "precision"
        )


def _join(values: Iterable[Any]) -> str:
    return ",".join(str(v) for v in dict.fromkeys(values))


def _part(name: str, write: Callable[[Any], str]) -> Callable[[RunConfig], list[LabelPart]]:
    return lambda config: [(name, write(getattr(config, name)), False)]


def _hint_part(config: RunConfig) -> list[LabelPart]:
    words = HINT_WORDS.get(config.hint, config.hint)
    return [("hint", words, API_HINT.get(config.api) == config.hint)]


def _hint_text(configs: Sequence[RunConfig]) -> str:
    # each api its own default: "auto" builds these runs, as typed (so does the api's own
    # hint named, which builds the very same request)
    if all(c.hint == default_hint(c.api) for c in configs):
        return AUTO
    return _join(c.hint for c in configs)


def _requests_text(configs: Sequence[RunConfig]) -> str:
    # sync runs once whatever the request counts: they are the async runs'
    return _join(c.requests for c in [c for c in configs if c.api == "async"] or configs)


def powers_of_two(lo: int, hi: int) -> list[int]:
    """lo, 2lo, 4lo, ... up to hi, and hi itself: tune's `batch=1..64`."""
    if lo < 1 or hi < lo:
        raise InputError(f"{lo}..{hi} is not a range of whole numbers from 1 up")
    found = [lo]
    while found[-1] * 2 <= hi:
        found.append(found[-1] * 2)
    return found if found[-1] == hi else [*found, hi]


def _up_to(most: int) -> str:
    return _join(powers_of_two(1, max(1, most)))


def _ran(name: str) -> Callable[[Any, Mapping[str, Any]], str]:
    """The value the engine reports it ran, else the asked one."""
    return lambda asked, resolved: str(resolved.get(name, asked))


def _threads_ran(asked: int, resolved: Mapping[str, Any]) -> str:
    """'auto (8)': the engine's choice, and what it chose where it says."""
    ran = resolved.get("threads")
    if asked == 0 and isinstance(ran, int) and ran > 0:
        return f"auto ({ran})"
    return AUTO if asked == 0 else str(asked)


CLOSED = "closed"
"""The rate field's word for a closed loop (no rate: a request is sent when one finishes)."""


CLOSED_LOOP = "closed loop"
"""A closed loop in a label beside rates ('b1 closed loop', 'b1 @200/s')."""


def _rates(text: str) -> list[float | None]:
    """'100,200' -> the open-loop rates; '' -> [None], a closed loop, as is an item 'closed'
    ('closed,100,200' measures the closed loop beside the rates)."""
    items = [item.strip() for item in str(text).split(",")]
    if items == [""]:
        return [None]
    found: list[float | None] = []
    for item in items:
        found.extend([None] if item.lower() == CLOSED else parse_rates(item))
    return list(dict.fromkeys(found))


def rate_label(rate: float | None) -> str:
    """How a label writes a rate: '@200/s'; 'closed loop' where there is none."""
    return CLOSED_LOOP if rate is None else f"@{rate:g}/s"


def _rate_text(rate: float | None) -> str:
    return CLOSED if rate is None else f"{rate:g}/s"


def _rates_text(configs: Sequence[RunConfig]) -> str:
    return _join(CLOSED if c.rate is None else f"{c.rate:g}" for c in configs)


def _dims_text(dims: Any) -> str:
    return " ".join(f"{name}={value}" for name, value in dims)


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "batch",
        "Batch sizes",
        "e.g. 1,4,8",
        "batch sizes, e.g. 1,4",
        "1",
        lambda t: _bounded(parse_positive_ints(t, "batch sizes"), MAX_BATCH, "batch"),
        _part("batch", lambda v: f"b{v}"),
        str,
        Stored("count", 1, MAX_BATCH),
        axis=0,
        summary=lambda asked, resolved: str(asked),
        tune=lambda caps, cores: "1,2,4,8,16,32",  # a modest space: batches 1 to 32
    ),
    Setting(
        "threads",
        "Threads",
        "auto or e.g. 1,2,4",
        "thread counts, e.g. 1,2 (auto or 0: the engine's default)",
        AUTO,
        _threads,
        _part("threads", lambda v: "t:auto" if v == 0 else f"t{v}"),
        lambda v: AUTO if v == 0 else str(v),
        Stored("count", 0, MOST_STORED),
        axis=2,
        text=lambda configs: _join(AUTO if c.threads == 0 else c.threads for c in configs),
        tune=lambda caps, cores: _up_to(cores),
        # the compiled model's total, shared by its streams: beyond the cores it oversubscribes
        fits=lambda c, cores: c.threads <= cores,
        fits_rule="threads at most {cores}",
        summary=_threads_ran,
    ),
    Setting(
        "streams",
        "Streams",
        "auto or e.g. 1,2",
        "N or auto (OpenVINO NUM_STREAMS)",
        AUTO,
        _in_flight("streams"),
        _part("streams", lambda v: "s:auto" if v == AUTO else f"s{v}"),
        str,
        Stored("count_or_auto", 1, MOST_STORED),
        axis=3,
        brief=("s:auto",),
        tune=lambda caps, cores: _up_to(cores) if caps.takes("streams") else AUTO,
        # a stream without a thread of its own cannot run beside the others
        fits=lambda c, cores: c.streams == AUTO or int(c.streams) <= c.threads,
        fits_rule="streams at most the threads",
        by_hint=True,
        unused="{engine}: one session",
        report=lambda v: f"streams {v}",
        summary=_ran("streams"),
    ),
    Setting(
        "requests",
        "Requests",
        "auto or e.g. 4",
        "requests in flight in async mode (sync has one)",
        AUTO,
        _in_flight("requests"),
        _part("requests", lambda v: "r:auto" if v == AUTO else f"r{v}"),
        str,
        Stored("count_or_auto", 1, MOST_STORED),
        axis=6,
        brief=("r:auto",),
        within=lambda values, chosen: values if chosen["api"] == "async" else (AUTO,),
        by_hint=True,
        text=_requests_text,
        tune=lambda caps, cores: f"{AUTO},{_up_to(2 * cores)}",
        report=lambda v: f"requests {v}",
        summary=_ran("requests"),
    ),
    Setting(
        "hint",
        "Hint",
        ", ".join(HINTS),
        f"{'|'.join(HINTS)}, or auto: latency for sync, throughput for async",
        AUTO,
        _hints,
        _hint_part,
        str,
        Stored("choice", choices=HINTS),
        axis=7,
        placeholder="auto: by API",
        within=lambda values, chosen: [v or default_hint(chosen["api"]) for v in values],
        text=_hint_text,
        report=lambda v: f"hint {v}",
        tune=lambda caps, cores: "throughput,latency" if caps.takes("hint") else "throughput",
        unused="not used by {engine}",
    ),
    Setting(
        "api",
        "API",
        "sync, async",
        "sync, async or sync,async",
        "sync",
        lambda t: parse_choices(t, "api", APIS),
        _part("api", str),
        str,
        Stored("choice", choices=APIS),
        axis=5,
        brief=("sync",),
        report=str,
        tune=lambda caps, cores: "async",
    ),
    Setting(
        "precision",
        "Precision",
        "empty for the engine's default, or " + ", ".join(PRECISIONS),
        " | ".join(PRECISIONS) + " (OpenVINO inference precision)",
        "",
        _precision,
        lambda c: [("precision", f"p:{c.precision or AUTO}", not c.precision)],
        lambda v: v or "default",
        Stored("choice", choices=PRECISIONS, optional=True),
        axis=3,
        placeholder="default",
        noted="precision asked",
        engine_check=_precision_on,
        text=lambda configs: next((c.precision for c in configs if c.precision), "") or "",
        report=lambda v: f"asked {v}" if v else None,
    ),
    Setting(
        "dims",
        "Shapes",
        "",
        "",
        "",
        None,
        lambda c: [(f"dim {name}", f"{name}={value}", False) for name, value in c.dims],
        lambda v: _dims_text(v) or "none",
        Stored("dims", 1, 2**31 - 1),
        axis=1,
        csv=_dims_text,
        report=lambda v: ", ".join(f"{name} {value}" for name, value in v) or None,
    ),
    Setting(
        "pinning",
        "CPU pinning",
        "auto (the engine's), on or off",
        "auto | on | off (OpenVINO ENABLE_CPU_PINNING; auto: the engine's default)",
        AUTO,
        lambda t: parse_choices(t, "pinning", PINNINGS),
        lambda c: [("pinning", f"pin:{c.pinning}", c.pinning == AUTO)],
        str,
        Stored("choice", choices=PINNINGS),
        axis=4,
        report=lambda v: None if v == AUTO else f"pinning {v}",
        unused="not used by {engine}",
        untaken=(AUTO,),
        always_stored=False,
    ),
    Setting(
        "rate",
        "Rate /s",
        "closed, or requests/s, e.g. 100,200,400",
        "open loop: requests (batches) per second issued on schedule, e.g. 100,200,400; "
        "closed (the default): a request is sent when one finishes",
        CLOSED,
        _rates,
        lambda c: [("rate", rate_label(c.rate), c.rate is None)],
        _rate_text,
        Stored("rate", most=int(MAX_RATE), optional=True),
        axis=8,
        placeholder=CLOSED,
        csv=lambda v: "" if v is None else v,
        text=_rates_text,
        report=lambda v: None if v is None else f"rate {v:g}/s",
        always_stored=False,
    ),
    Setting(
        "arrival",
        "Arrival",
        ", ".join(ARRIVALS) + " (with a rate)",
        f"{'|'.join(ARRIVALS)}: how open-loop requests arrive (default poisson)",
        ARRIVALS[0],
        lambda t: parse_choices(t, "arrival", ARRIVALS),
        lambda c: [("arrival", c.arrival, c.rate is None or c.arrival == ARRIVALS[0])],
        str,
        Stored("choice", choices=ARRIVALS),
        axis=9,
        within=lambda values, chosen: values if chosen["rate"] is not None else (ARRIVALS[0],),
        report=lambda v: None if v == ARRIVALS[0] else f"{v} arrivals",
        always_stored=False,
    ),
)
"""Every benchmark setting, in the order labels, notes and CSV columns read them."""
BY_NAME = {s.name: s for s in SETTINGS}
TYPED = tuple(s for s in SETTINGS if s.parse is not None)
"""The settings typed in a field of their own (the form's, the CLI's flags)."""
KNOBS = tuple(s.name for s in SETTINGS if s.tune is not None)
"""The settings a tune searches, as `--space KNOB=VALUES` names them."""


def parse(setting: Setting, text: str, capabilities: Capabilities | None = None) -> list[Any]:
    """`text`'s values of `setting`; with an engine's `capabilities`, InputError for a value it
    cannot honour (a precision it lacks, a setting it does not take at other than its default)."""
    assert setting.parse is not None, f"{setting.name} is not typed"
    values = setting.parse(text)
    if capabilities is None:
        return values
    if setting.untaken is not None and not capabilities.takes(setting.name):
        refused = [v for v in values if v not in setting.untaken]
        if refused:
            raise InputError(
                f"{capabilities.engine} does not take {setting.name} {refused[0]}; leave it "
                f"{setting.default} or measure on an engine that does"
            )
    if setting.engine_check is not None:
        setting.engine_check(values, capabilities)
    return values


def expand_matrix(axes: Mapping[str, Sequence[Any]]) -> tuple[RunConfig, ...]:
    """Every combination of the settings' values (`axes`: name -> values; a setting not given
    takes its default), batch outermost, then the named-dimension points (`--shape
    seq=64,128`), as Sparsify's "enable multiple" matrices.

    Sync has one request in flight whatever `requests` says, so it runs once (requests
    "auto"), never once per request count; a hint None is the api's `default_hint`."""
    defaults = RunConfig()
    order = sorted(SETTINGS, key=lambda s: s.axis)
    found: list[RunConfig] = []

    def nest(depth: int, chosen: dict[str, Any]) -> None:
        if depth == len(order):
            found.append(RunConfig(**chosen))
            return
        setting = order[depth]
        values = axes.get(setting.name) or _axis_default(setting, defaults)
        for value in setting.axis_values(values, chosen):
            _check_choice(setting, value)
            nest(depth + 1, {**chosen, setting.name: value})

    nest(0, {})
    return tuple(found)


def _axis_default(setting: Setting, defaults: RunConfig) -> Sequence[Any]:
    """A setting's values where none are given: its default text's, else RunConfig's."""
    if setting.parse is not None:
        return setting.parse(setting.default)
    return (getattr(defaults, setting.name),)


def _check_choice(setting: Setting, value: Any) -> None:
    choices = setting.stored.choices
    if choices and value not in choices and not (value is None and setting.stored.optional):
        raise InputError(f"unknown {setting.name} {value!r}; choose from: {', '.join(choices)}")


_UNSET = RunConfig()
_STORED = tuple((s.name, s.always_stored, getattr(_UNSET, s.name)) for s in SETTINGS)


def stored(config: RunConfig) -> dict[str, Any]:
    """`config`'s settings as stored (JSON types; a later setting only where set)."""
    found = {}
    for name, always, unset in _STORED:
        value = getattr(config, name)
        if always or value != unset:
            found[name] = value
    found["dims"] = dict(config.dims)
    return found


def config_parts(config: RunConfig) -> list[LabelPart]:
    """The parts of every label of `config`, in the order labels read."""
    return [part for setting in SETTINGS for part in setting.label(config)]


def key(config: RunConfig, without: Iterable[str] = ()) -> RunConfig:
    """`config` with the settings named in `without` at their defaults: configurations equal
    in all else have equal keys, whatever settings exist."""
    defaults = RunConfig()
    return dataclasses.replace(config, **{name: getattr(defaults, name) for name in without})


def differing(a: RunConfig, b: RunConfig) -> list[str]:
    """'batch 1 vs 4', ...: each setting in which `a` differs from `b`."""
    found = []
    for setting in SETTINGS:
        read_a, read_b = (setting.reads(getattr(c, setting.name)) for c in (a, b))
        if read_a != read_b:
            found.append(f"{setting.noted or setting.name} {read_a} vs {read_b}")
    return found


def as_text(configs: Sequence[RunConfig]) -> dict[str, str]:
    """The typed fields that give `configs` (a request's matrix) again."""
    return {
        s.name: s.text(configs) if s.text else _join(getattr(c, s.name) for c in configs)
        for s in TYPED
    }


def tune_defaults(capabilities: Capabilities, cores: int) -> dict[str, str]:
    """The values tune searches by default for this engine on `cores` cores, per knob."""
    return {s.name: s.tune(capabilities, cores) for s in SETTINGS if s.tune is not None}


def fits_cores(config: RunConfig, cores: int) -> bool:
    """Whether `config` is worth a trial on `cores` cores (each setting's rule); an engine
    default (threads 0, "auto") is the engine's to fit."""
    if config.threads <= 0:
        return True
    return all(s.fits(config, cores) for s in SETTINGS if s.fits is not None)


def summary(config: RunConfig, resolved: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(name, text) of each setting a run's summary shows, the values the engine reports it
    ran winning over the asked ones."""
    return tuple(
        (s.name, s.summary(getattr(config, s.name), resolved))
        for s in SETTINGS
        if s.summary is not None
    )


def fits_rules(cores: int) -> str:
    """What `fits_cores` asks, in words: 'threads at most 4, streams at most the threads'."""
    return ", ".join(s.fits_rule.format(cores=cores) for s in SETTINGS if s.fits_rule)


def unused_note(setting: Setting, capabilities: Capabilities) -> str:
    """What the form says of a setting this engine does not take ('' where it says nothing)."""
    if capabilities.takes(setting.name) or not setting.unused:
        return ""
    return setting.unused.format(engine=capabilities.engine)
