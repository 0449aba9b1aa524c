"""Fitting text into a number of terminal cells: cut with an ellipsis, keep the most useful
parts of a one-line header, size the one flexible column of a table.

Pure functions (no textual); the dashboard uses them so that an 80-column terminal never
gets a wrapped header or a horizontal scrollbar. Widths count characters: perftui's names,
labels and numbers are one cell each.
"""

from __future__ import annotations

from collections.abc import Sequence

from perftui.domain.errors import ELLIPSIS, cut

SEPARATORS = "-_. "


def shared_start(name: str, others: set[str]) -> int:
    """How many characters of `name` another name starts with too, up to a separator."""
    same = max(
        (
            next(
                (i for i, (a, b) in enumerate(zip(name, other, strict=False)) if a != b),
                min(len(name), len(other)),
            )
            for other in others - {name}
        ),
        default=0,
    )
    return max((i + 1 for i, char in enumerate(name[:same]) if char in SEPARATORS), default=0)


def unique_tail(name: str, others: set[str]) -> int:
    """Where the shortest end of `name` that no other name ends with starts, just after a
    separator: beside 'mobilenet-int8-ov', 'mobilenet-fp32-ov' is told apart by its end
    'fp32-ov' (it starts at 10). 0 when no such end starts after a separator."""
    rivals = others - {name}
    for start in range(len(name) - 1, 0, -1):
        if name[start - 1] in SEPARATORS and not any(o.endswith(name[start:]) for o in rivals):
            return start
    return 0


def distinct(names: Sequence[str], width: int) -> list[str]:
    """`names` shown together (a table's column, two selects), each in `width` cells and
    still told apart: the start a name shares with another is cut, not the tail that
    differs.

    'mobilenet-fp32-int8-ov' and 'mobilenet-fp32-ort' at 12 cells become 'mobi…int8-ov'
    and 'mobilene…ort': as much of the start as fits, an ellipsis in the shared start (cut
    at a separator), then the rest; a rest too wide keeps its end. The rest reaches back at
    least to an end no other name has (`unique_tail`): among '...-fp32-ov', '...-int8-ov'
    and '...-fp32-ort' the first keeps 'fp32-ov', not the 'ov' after the start it shares
    with the third. A name that shares no start is cut in the middle (`cut`)."""
    width = max(1, width)
    unique = set(names)
    shown = []
    for name in names:
        shared = shared_start(name, unique)
        if shared:
            shared = min(shared, unique_tail(name, unique) or shared)
        rest = name[shared:]
        if len(name) <= width:
            shown.append(name)
        elif not shared:
            shown.append(cut(name, width, middle=True))
        elif len(rest) < width:
            shown.append(name[: width - 1 - len(rest)] + ELLIPSIS + rest)
        else:
            shown.append(ELLIPSIS + rest[len(rest) - width + 1 :])
    return shown


SHORTER = (
    {"t:auto": "t:a", "s:auto": "s:a", "r:auto": "r:a", "p:auto": "p:a"},
    {"async": "as", "sync": "sy"},
)
"""Shorter words of a configuration's label, tried in turn before anything is cut."""


def fit_labels(labels: Sequence[str], width: int) -> list[str]:
    """Labels of configurations (`domain.labels`: words that differ between them) in `width`
    cells: the words shortened alike ('r:auto' to 'r:a', then 'async' to 'as') where that
    makes every label fit, else `distinct`. A cut in the middle of a label could drop the
    very word that told two rows apart ('b1 t1 r:auto async', 'b1 t2 r:auto async')."""
    shown = list(labels)
    for words in ({}, *SHORTER):
        shown = [" ".join(words.get(word, word) for word in label.split(" ")) for label in shown]
        if all(len(label) <= width for label in shown):
            return shown
    return distinct(labels, width)


def distinct_named(named: Sequence[tuple[str, str]], width: int) -> list[str]:
    """(name, rest) pairs shown as 'name rest' in `width` cells, e.g. a project and a run's
    settings ('mobilenet-fp32-ov b1 t:auto'): the names are cut together by `distinct` in
    what the widest rest leaves (at least half the width, up to 8 cells), then the rests
    together in what the names leave. Two names that differ in the middle ('...-fp32-ov',
    '...-int8-ov') are so never cut alike by the settings' tail they share."""
    width = max(1, width)
    texts = [f"{name} {rest}".strip() for name, rest in named]
    if all(len(text) <= width for text in texts):
        return texts
    names, rests = [name for name, _ in named], [rest for _, rest in named]
    if not any(names):
        return fit_labels(rests, width)
    widest = max((len(rest) + 1 for rest in rests if rest), default=0)
    names = distinct(names, max(min(8, width // 2), width - widest))
    room = width - max(len(name) for name in names) - 1
    rests = fit_labels(rests, room) if room > 0 else [""] * len(rests)
    return [f"{name} {rest}".strip() for name, rest in zip(names, rests, strict=True)]


def fit_parts(parts: Sequence[tuple[str, int]], width: int, sep: str = "  ") -> list[str]:
    """The parts of a one-line text that fit in `width` cells, in their order.

    Each part is (text, rank): the part with the highest rank is dropped first until the
    line fits. The first part (what the line is about, e.g. a project name) is never
    dropped; if it alone is too wide it is cut with an ellipsis."""
    if not parts:
        return []
    kept = list(range(len(parts)))

    def length(indices: list[int]) -> int:
        return sum(len(parts[i][0]) for i in indices) + len(sep) * (len(indices) - 1)

    droppable = sorted(range(1, len(parts)), key=lambda i: (-parts[i][1], -i))
    for index in droppable:
        if length(kept) <= width:
            break
        kept.remove(index)
    texts = [parts[i][0] for i in kept]
    texts[0] = cut(texts[0], width - (length(kept) - len(texts[0])))
    return texts


def room_left(total: int, others: Sequence[int], *, padding: int = 2) -> int:
    """What `total` cells leave for one more table column when the other columns need
    `others` cells of content each and every column adds `padding` cells (may be < 0)."""
    return total - sum(others) - padding * (len(others) + 1)


def flex_width(
    total: int, others: Sequence[int], *, padding: int = 2, minimum: int = 8, maximum: int = 40
) -> int:
    """The width of a table's one flexible column: `room_left`, within [minimum, maximum]."""
    return max(minimum, min(maximum, room_left(total, others, padding=padding)))
