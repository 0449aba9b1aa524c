"""What `perftui tune` searches: the space of settings as text, its candidates, and what can
be pruned without measuring.

Domain knowledge that cuts the space (OpenVINO's throughput notes, perftui's own runs):
- each setting's own rule of what fits the machine's cores (perftui.domain.settings.fits_cores:
  threads beyond the cores only oversubscribe it, ...) drops what cannot run well;
- latency rises with the batch and with the requests in flight, the rest held equal, so once
  a configuration is over the latency budget, every larger batch or request count with the
  same other settings is too (`dominated`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from perftui.domain.errors import InputError
from perftui.domain.forms.bench import FORM
from perftui.domain.forms.fields import FieldError
from perftui.domain.model.shapes import DimPoint
from perftui.domain.records import AUTO, RunConfig
from perftui.domain.settings import (
    KNOBS,
    expand_matrix,
    fits_cores,
    fits_rules,
    key,
    powers_of_two,
    tune_defaults,
)

if TYPE_CHECKING:
    from perftui.domain.capabilities import Capabilities

_RANGE = re.compile(r"^\s*(\d+)\s*\.\.\s*(\d+)\s*$")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$", re.IGNORECASE)
_UNIT_S = {"s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True)
class Space:
    """The values of each knob, as lists of the settings form (perftui.domain.forms.bench)."""

    values: Mapping[str, str]
    """Knob -> comma-separated values as the settings form takes them ("1,2,4", "auto")."""

    def text(self) -> str:
        """The space as `--space` takes it."""
        return " ".join(f"{knob}={self.values[knob]}" for knob in KNOBS)


def default_space(capabilities: Capabilities, cores: int) -> Space:
    """A modest space for the engine of `capabilities` on a machine with `cores` cores (each
    knob's default, perftui.domain.settings)."""
    return Space(tune_defaults(capabilities, cores))


def parse_space(items: Sequence[str], base: Space) -> Space:
    """`base` with the knobs `items` ("batch=1..64", "threads=1,2") replace; InputError naming
    the bad item. A range lo..hi means the powers of two from lo up to hi."""
    values = dict(base.values)
    seen: set[str] = set()
    for item in (part for text in items for part in text.split()):
        knob, sep, text = item.partition("=")
        knob = knob.strip().lower()
        if not sep or knob not in KNOBS:
            raise InputError(f"{item!r} is not KNOB=VALUES with KNOB one of {', '.join(KNOBS)}")
        if knob in seen:
            raise InputError(f"{knob} is given twice")
        seen.add(knob)
        if not text.strip():
            raise InputError(f"{knob} has no values")
        span = _RANGE.match(text)
        values[knob] = _up_to_range(span) if span else text.strip()
    return Space(values)


def _up_to_range(span: re.Match[str]) -> str:
    return ",".join(str(v) for v in powers_of_two(int(span.group(1)), int(span.group(2))))


def candidates(
    space: Space,
    cores: int,
    precision: str | None = None,
    dims: DimPoint = (),
) -> tuple[RunConfig, ...]:
    """Every configuration of `space` worth measuring on `cores` cores, in matrix order.

    The values are parsed by the settings form's own parsers; InputError names the knob."""
    parsed = {}
    for knob in KNOBS:
        try:
            parsed[knob] = FORM.parse(knob, space.values[knob])
        except FieldError as error:
            raise InputError(f"{knob}: {error}") from None
    configs = expand_matrix(parsed | {"precision": [precision], "dims": [dims]})
    kept = tuple(dict.fromkeys(c for c in configs if fits_cores(c, cores)))
    if not kept:
        raise InputError(
            f"no configuration of the space fits the {cores} cores ({fits_rules(cores)}): "
            f"{space.text()}"
        )
    return kept


def _same_but_load(a: RunConfig, b: RunConfig) -> bool:
    """Equal but for the batch and the requests in flight."""
    return key(a, without=LOAD) == key(b, without=LOAD)


LOAD = ("batch", "requests")
"""The settings latency rises with, the rest held equal."""


def _requests_at_least(config: RunConfig, other: RunConfig) -> bool:
    if config.api == "sync" or config.requests == other.requests:
        return True
    if AUTO in (config.requests, other.requests):
        return False
    return int(config.requests) >= int(other.requests)


def dominated(config: RunConfig, over_budget: Sequence[RunConfig]) -> RunConfig | None:
    """The configuration over the latency budget that makes `config` over it too (the same
    settings with a batch and requests no larger), or None."""
    for other in over_budget:
        if (
            _same_but_load(config, other)
            and config.batch >= other.batch
            and _requests_at_least(config, other)
        ):
            return other
    return None


def parse_duration(text: str) -> float:
    """'10m', '90s', '1.5h' or plain seconds -> seconds (more than 0); InputError else."""
    found = _DURATION.match(text)
    if not found:
        raise InputError(f"{text!r} is not a duration such as 90s, 10m or 1h")
    seconds = float(found.group(1)) * _UNIT_S[(found.group(2) or "s").lower()]
    if seconds <= 0:
        raise InputError(f"{text!r} leaves no time to measure")
    return seconds


def parse_latency_ms(text: str) -> float:
    """A latency budget in ms, more than 0 ('5', '2.5', '5ms'); InputError else."""
    cleaned = text.strip().lower().removesuffix("ms").strip()
    try:
        value = float(cleaned)
    except ValueError:
        raise InputError(f"{text!r} is not a latency in milliseconds") from None
    if not 0 < value < float("inf"):
        raise InputError(f"{text!r}: a latency budget is more than 0 ms")
    return value
