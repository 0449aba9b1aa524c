"""Errors that carry one clear line for a person (the CLI exits 2, the dashboard notifies),
and the one way to cut a long text to a width (names in tables, values echoed in errors)."""

import re

from perftui.domain.cells import cell_width, take

ELLIPSIS = "…"
ECHO_MAX = 256
"""The most characters of one word (a value echoed in an error) a one-line error shows: a
path or a 200-character project name whole, a 10,000-character value cut."""


class InputError(ValueError):
    """Bad input from the person (path, model, option, shape); the message says what to do."""


class StoreError(RuntimeError):
    """The results database cannot be read or written; it is left untouched."""


def cut(text: str, width: int, *, middle: bool = False) -> str:
    """`text` if it fits in `width` cells, else its start and an ellipsis (width >= 1).

    With `middle`, the ellipsis goes in the middle and the end stays: names of one family
    ('mobilenet-fp32-ov', 'mobilenet-fp32-ort') differ at the end."""
    width = max(1, width)
    if cell_width(text) <= width:
        return text
    if not middle or width < 5:
        return take(text, width - 1) + ELLIPSIS
    tail = (width - 1) // 2
    end = take(text, tail, from_end=True)
    return take(text, width - 1 - cell_width(end)) + ELLIPSIS + end


_LONG_WORD = re.compile(rf"\S{{{ECHO_MAX + 1},}}")


def cut_echoes(line: str) -> str:
    """`line` with every word longer than ECHO_MAX cut in the middle: a 10,000-character
    name echoed in an error keeps the error one line of a readable length."""
    return _LONG_WORD.sub(lambda word: cut(word.group(), ECHO_MAX, middle=True), line)


def one_line(error: BaseException) -> str:
    """An exception as the one line a person reads: an InputError's or a StoreError's first
    line as it is (it says what to do), anything else's after its type; long values cut
    (`cut_echoes`)."""
    lines = str(error).strip().splitlines()
    first = cut_echoes(lines[0].strip()) if lines else ""
    if isinstance(error, InputError | StoreError):
        return first or type(error).__name__
    return f"{type(error).__name__}: {first}" if first else type(error).__name__
