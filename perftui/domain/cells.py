"""Text widths in terminal cells, not characters: a wide character (CJK, most emoji) takes
two cells, a combining mark or a zero-width character none. Every table that aligns text
measures it here; `domain.errors.cut` cuts by it."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["cell_width", "ljust", "rjust", "take"]

_ZERO_WIDTH = frozenset({"Mn", "Me", "Cf", "Cc"})


@lru_cache(maxsize=4096)
def _char_width(char: str) -> int:
    if unicodedata.category(char) in _ZERO_WIDTH:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cell_width(text: str) -> int:
    """The cells `text` takes in a terminal: '模型-日本' is 9, 'abc' 3."""
    return len(text) if text.isascii() else sum(_char_width(char) for char in text)


def ljust(text: str, width: int) -> str:
    """`text` padded with spaces on the right to `width` cells."""
    return text + " " * (width - cell_width(text))


def rjust(text: str, width: int) -> str:
    """`text` padded with spaces on the left to `width` cells."""
    return " " * (width - cell_width(text)) + text


def take(text: str, cells: int, *, from_end: bool = False) -> str:
    """The longest start (or end) of `text` that fits in `cells` cells; a combining mark
    stays with the character before it."""
    if text.isascii():
        return (text[len(text) - cells :] if cells > 0 else "") if from_end else text[:cells]
    chars = reversed(text) if from_end else iter(text)
    taken: list[str] = []
    used = 0
    for char in chars:
        used += _char_width(char)
        if used > cells:
            break
        taken.append(char)
    if from_end:
        while taken and _char_width(taken[-1]) == 0:  # a mark without its character
            taken.pop()
        return "".join(reversed(taken))
    return "".join(taken)
