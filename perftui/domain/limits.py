"""The bounds every front end checks the same way (bench, tune, optimize, the dashboard):
one place for each rule, so a value one command refuses no other accepts."""

from __future__ import annotations

from perftui.domain.errors import InputError
from perftui.domain.records import LOCAL, Project

__all__ = [
    "DEFAULT_RANDOM_SAMPLES",
    "MAX_BATCH",
    "MAX_MEMORY_MIB",
    "MAX_PRICE_PER_HOUR",
    "MAX_SAMPLES",
    "MAX_SEED",
    "check_here",
    "check_samples",
    "check_seed",
    "pair_host",
    "parse_memory_limit",
    "parse_price",
]

MAX_SEED = 2**32 - 1
"""numpy's seeds are 32-bit."""
MAX_SAMPLES = 10_000
"""Calibration or accuracy samples at most (NNCF's default subset is 300): `--samples
1000000` made a quantize worker grow to 24 GB before anything refused it."""

DEFAULT_RANDOM_SAMPLES = 16
"""Random calibration samples when none are given (as for the shipped INT8 sample)."""
MAX_BATCH = 1_000_000
"""The largest batch perftui stores (perftui.exchange.schema); the bench form refuses more."""


def check_seed(seed: object) -> int:
    """`seed` if it is a whole number from 0 to MAX_SEED; InputError otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InputError(f"{seed} is not a seed from 0 to {MAX_SEED}")
    return seed


def check_samples(samples: object) -> int | None:
    """`samples` (None: the default) if it is from 1 to MAX_SAMPLES; InputError otherwise."""
    if samples is None:
        return None
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise InputError(f"{samples} is not a number of samples from 1 to {MAX_SAMPLES:,}")
    return samples


MAX_MEMORY_MIB = 2.0**30
"""A memory limit up to 1 PiB (in MiB): anything larger is a typo, not a machine."""


def parse_memory_limit(text: object) -> float:
    """A memory limit in MiB (`--max-memory MB`, the dashboard's field): a number above 0;
    InputError with one line otherwise."""
    shown = str(text).strip()
    try:
        value = float(shown)
    except ValueError:
        raise InputError(
            f"memory limit {shown!r} is not a number; give MiB above 0, e.g. 512"
        ) from None
    if not 0 < value <= MAX_MEMORY_MIB:
        raise InputError(
            f"memory limit {shown} is out of range; give MiB above 0, up to {MAX_MEMORY_MIB:,.0f}"
        )
    return value


MAX_PRICE_PER_HOUR = 10_000.0
"""A machine's price per hour up to 10,000 (any currency): more is a typo, not a machine."""


def parse_price(text: object) -> float:
    """A machine's price per hour (`--price-per-hour`, `targets price`, the targets file, the
    dashboard's field): a number from 0 to MAX_PRICE_PER_HOUR; InputError with one line."""
    shown = str(text).strip()
    try:
        value = float(shown)
    except ValueError:
        value = float("nan")
    if isinstance(text, bool) or not 0 <= value <= MAX_PRICE_PER_HOUR:  # nan fails both
        raise InputError(
            f"price per hour {shown!r} is not a price; give a number from 0 to"
            f" {MAX_PRICE_PER_HOUR:,.0f}, e.g. 0.34"
        )
    return value


def check_here(project: Project, doing: str, instead: str) -> None:
    """InputError when `project` is measured on another host: `doing` runs on this machine
    only, and a run made here must not be stored as that host's."""
    if project.target != LOCAL:
        raise InputError(
            f"{project.name} is measured on target {project.target!r}; {doing} runs on "
            f"this machine: {instead}"
        )


def pair_host(projects: list[Project], given: str | None) -> str:
    """The one machine both sides of an alternated pair run on: `given` (a --target), else
    the projects' own (LOCAL: this machine); InputError for a project measured elsewhere."""
    host = given or (projects[0].target if projects else LOCAL)
    for project in projects:
        if project.target != host:
            raise InputError(
                f"{project.name} is measured on {_machine(project.target)}, not on "
                f"{_machine(host)}: pairs must share a machine"
            )
    return host


def _machine(target: str) -> str:
    return "this machine" if target == LOCAL else f"target {target!r}"
