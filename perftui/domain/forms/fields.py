"""One vocabulary for settings typed as text, in a form or on the command line.

A field is parsed by one function that returns its value or raises InputError with one line
saying what is wrong; a `Form` is those functions in field order. Every form (the benchmark
settings, the optimize dialog) and the CLI report a bad field the same way: a `FieldError`
naming the field.

A message names another setting by its flag (`--shape`), the CLI's words; a form shows the same
message with its own field labels (`in_form`), so each is written once and reads right where
it is shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from perftui.domain.errors import InputError

Parser = Callable[[str], Any]


class FieldError(InputError):
    """An InputError that belongs to one field (`field` names it)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Form:
    """The parser of each field, in the order a person fills them in."""

    parsers: Mapping[str, Parser]
    defaults: Mapping[str, str]
    """The text of a field that is not given."""

    def parse(self, name: str, text: str) -> Any:
        """The value of one field; FieldError with the reason."""
        try:
            return self.parsers[name](text)
        except InputError as error:
            raise FieldError(name, str(error)) from None

    def check(self, name: str, text: str) -> str | None:
        """The reason a field cannot be used as typed, or None."""
        try:
            self.parse(name, text)
        except FieldError as error:
            return str(error)
        return None

    def errors(self, values: Mapping[str, str]) -> dict[str, str]:
        """Reason per invalid field (missing fields count as their defaults)."""
        found = {}
        for name in self.parsers:
            reason = self.check(name, values.get(name, self.defaults.get(name, "")))
            if reason is not None:
                found[name] = reason
        return found

    def parse_all(
        self, values: Mapping[str, str], names: Iterable[str] | None = None
    ) -> dict[str, Any]:
        """The value of every field (or of `names`); FieldError naming the first invalid one."""
        return {
            name: self.parse(name, values.get(name, self.defaults.get(name, "")))
            for name in (self.parsers if names is None else names)
        }


_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def in_form(message: str, labels: Mapping[str, str]) -> str:
    """`message` as a form shows it: each flag that `labels` knows (flag -> field label) said
    as the field's label, e.g. "give it a size with --shape x[1,8]" -> "... with Shapes x[1,8]"."""
    return _FLAG.sub(lambda match: labels.get(match.group(), match.group()), message)


def at_most(value: int, most: int, what: str) -> None:
    """Refuse a count no one can mean (more threads than any machine has, a warm-up of days)."""
    if value > most:
        raise InputError(f"{what} {value:,} is more than anyone means; give at most {most:,}")


def duration(seconds: float) -> str:
    """Seconds as a person says them: '45 s', 'about 12 minutes', 'about 11 days'."""
    for unit, size in (("year", 365 * 86400), ("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= 2 * size or (unit == "minute" and seconds >= 100):
            return f"about {seconds / size:.0f} {unit}s"
    return f"{seconds:g} s"


def whole_number(
    text: str, what: str, *, least: int = 1, most: int | None = None, optional: bool = False
) -> int | None:
    """One whole number of `what` in [`least`, `most`]; None for an empty field when it is
    `optional` (the default then applies)."""
    text = text.strip()
    if not text and optional:
        return None
    if "," in text:
        raise InputError(f"one whole number of {what}, not a list")
    try:
        value: int | None = int(text)
    except ValueError:
        value = None
    if value is None or value < least:
        default = " (empty: the default)" if optional else ""
        raise InputError(f"one whole number of {what}, at least {least}{default}")
    if most is not None:
        at_most(value, most, what)
    return value


def seconds(text: str, what: str, *, most: float = float("inf")) -> float:
    """A finite number of seconds in [0, `most`] (0: no minimum time)."""
    try:
        value = float(text.strip())
    except ValueError:
        raise InputError(
            f"{what} {text.strip()!r} is not a number; give seconds, e.g. 10"
        ) from None
    if not 0 <= value < float("inf"):  # also refuses nan
        raise InputError(f"{what} must be a number of seconds >= 0 (0: the iterations alone)")
    if value > most:
        raise InputError(
            f"{what} of {duration(value)} per run is more than anyone means; give at most "
            f"{duration(most).removeprefix('about ')}"
        )
    return value
