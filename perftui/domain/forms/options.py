"""Parsing and validation of values typed by a person (CLI flags, dashboard fields); each
benchmark setting's own rule is perftui.domain.settings'.

Every function raises InputError with one line that says what was wrong and what to do, so
the CLI and the dashboard can show the same message.
"""

from __future__ import annotations

from collections.abc import Sequence

from perftui.domain.errors import InputError
from perftui.domain.model.shapes import parse_shapes as parse_shapes  # the shape flags' parser
from perftui.domain.records import AUTO, Auto


def _items(text: str) -> list[str]:
    """The comma-separated items of `text` ([] for nothing at all); InputError for an empty
    item ('1,,2', '1,'), which would otherwise be dropped without a word."""
    items = [item.strip() for item in str(text).split(",")]
    if items == [""]:
        return []
    if "" in items:
        raise InputError(f"{str(text).strip()!r} has an empty item; give a list such as 1,4")
    return items


def _whole_numbers(text: str, what: str, least: int) -> list[int]:
    """'1,4,4' -> [1, 4, 4]: every item, in order, each a whole number >= `least`."""
    items = _items(text)
    if not items:
        raise InputError(f"{what} is empty; give one or more whole numbers, e.g. 1,4")
    values: list[int] = []
    for item in items:
        try:
            value = int(item)
        except ValueError:
            raise InputError(
                f"{what} {item!r} is not a whole number; give whole numbers >= {least}, e.g. 1,4"
            ) from None
        if value < least:
            raise InputError(f"{what} {value} is out of range; give whole numbers >= {least}")
        values.append(value)
    return values


def parse_positive_ints(text: str, what: str, *, allow_zero: bool = False) -> list[int]:
    """'1,4,8' -> [1, 4, 8]; duplicates removed, order kept (a list of settings to sweep)."""
    return list(dict.fromkeys(_whole_numbers(text, what, 0 if allow_zero else 1)))


def parse_int_or_auto(text: str, what: str) -> list[int | Auto]:
    """'auto' or '1,2' -> ['auto'] or [1, 2]."""
    items = _items(text)
    if not items:
        raise InputError(f"{what} is empty; give 'auto' or whole numbers >= 1")
    values: list[int | Auto] = []
    for item in items:
        if item.lower() == AUTO:
            value: int | Auto = AUTO
        else:
            value = parse_positive_ints(item, what)[0]
        if value not in values:
            values.append(value)
    return values


def parse_choices(text: str, what: str, choices: Sequence[str]) -> list[str]:
    items = [item.lower() for item in _items(text)]
    if not items:
        raise InputError(f"{what} is empty; choose from: {', '.join(choices)}")
    for item in items:
        if item not in choices:
            raise InputError(f"unknown {what} {item!r}; choose from: {', '.join(choices)}")
    return list(dict.fromkeys(items))


def parse_threshold(text: str) -> float:
    """A latency threshold in milliseconds: a positive number."""
    try:
        value = float(str(text).strip())
    except ValueError:
        raise InputError(
            f"latency threshold {str(text).strip()!r} is not a number; give milliseconds, e.g. 5"
        ) from None
    if not value > 0 or value == float("inf"):
        raise InputError(f"latency threshold {value:g} is out of range; give milliseconds > 0")
    return value
