"""One rule for names a person gives (projects, on every way in), and text made safe to print.

A project name is shown in one table cell and one terminal line: `bench --project
$'x\\e[31mRED'` stored an escape sequence that recoloured every table after it, and a newline,
CR, BEL or U+202E (right-to-left override) broke or reordered them (issue 26). The rule:
1 to MAX_NAME characters, not only spaces, no control character (C0, DEL, C1), no line or
paragraph separator and no bidirectional control. Text read back from the store, which older
versions or other tools wrote, is printed through `terminal_safe`.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import PurePath

from perftui.domain.errors import InputError
from perftui.domain.records import LOCAL

__all__ = [
    "MAX_NAME",
    "check_project_name",
    "default_project_name",
    "int8_name",
    "name_problem",
    "terminal_safe",
    "unsafe_char",
]

MAX_NAME = 200
"""Characters in a project name at most (the store's import takes the same)."""
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Characters that reorder the text around them on a terminal."""
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(BIDI)) + "]"
)  # fmt: skip


_UNSAFE_IN_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(BIDI)) + "]"
)  # fmt: skip


def unsafe_char(text: str) -> str | None:
    """The first character of `text` a terminal would act on instead of showing, or None."""
    match = _UNSAFE.search(text)
    return match.group() if match else None


WORDS = {"\x1b": "an escape", "\n": "a newline", "\r": "a carriage return", "\x07": "a bell"}


def describe(char: str) -> str:
    """'an escape (U+001B)'-like words for a character."""
    return f"{WORDS.get(char, 'the control character')} (U+{ord(char):04X})"


def check_project_name(name: object, what: str = "project name") -> str:
    """`name` if a project may have it; InputError saying why not."""
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"a {what} needs at least one visible character")
    if len(name) > MAX_NAME:
        raise InputError(f"a {what} has at most {MAX_NAME} characters (this one {len(name):,})")
    char = unsafe_char(name)
    if char is not None:
        raise InputError(
            f"{what} '{terminal_safe(name)}' holds {describe(char)}, which a terminal would act"
            " on; use visible characters"
        )
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{what} {name!r} is not valid text (a lone surrogate)") from None
    return name


def default_project_name(model: str, engine: str, device: str, target: str = LOCAL) -> str:
    """The name a model's project gets where none is given, on every way in (`bench`, a
    model side of `gate`, the New project screen): 'minilm_l6-openvino-CPU', the model
    file's stem, the engine and the device, so one model measured from the CLI and from the
    dashboard lands in one project; on a target, '...@box' (as `bench --target` adds it)."""
    name = f"{PurePath(model).stem}-{engine}-{device}"
    return name if target == LOCAL else f"{name}@{target}"


def name_problem(name: str, what: str = "project name") -> str | None:
    """Why `name` cannot be a project's (for a form's field), or None."""
    try:
        check_project_name(name, what)
    except InputError as error:
        return str(error)
    return None


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str, lines: bool = False) -> str:
    """`text` with every character `unsafe_char` finds written as a visible escape (\\x1b,
    \\u202e), so stored text prints as itself and moves no cursor; `lines` keeps newlines and
    tabs (a whole document's text)."""
    if lines:
        return _UNSAFE_IN_LINES.sub(_escaped, text)
    return _UNSAFE.sub(_escaped, text)


def int8_name(source: str, method: str, taken: Collection[str] = ()) -> str:
    """The INT8 project's default name: '<source>-int8' ('-int8-dynamic' for dynamic),
    numbered ('-2', '-3', ...) past the names in `taken`."""
    base = f"{source}-int8" if method == "static" else f"{source}-int8-dynamic"
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}-{counter}", counter + 1
    return name
