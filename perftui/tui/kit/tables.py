"""Tables that fit their width: one flexible column takes what the others leave, so an
80-column terminal never needs a horizontal scrollbar."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, NamedTuple

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from perftui.domain.names import terminal_safe
from perftui.tui.kit.fit import distinct_named, fit_labels, flex_width, room_left

SCROLLBAR = 2
"""Cells a DataTable's vertical scrollbar takes."""


class RowTable(DataTable[str]):
    """A table of rows (a row cursor, zebra stripes) where Home and End move the cursor to the
    first and last row: DataTable's own Home/End scroll sideways, which a table that fits
    its width never needs."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)


class Named(NamedTuple):
    """A cell of the flexible column that names something and then says more of it (a
    project and a run's settings): the names are cut together, the rest stays whole
    (`fit.distinct_named`)."""

    name: str
    rest: str

    def __str__(self) -> str:
        return f"{self.name} {self.rest}".strip()


Cell = str | Text | Named
CHECKED, UNCHECKED = Text("[x]"), Text("[ ]")


def right(text: str) -> Text:
    """A right-aligned cell (figures)."""
    return Text(text, justify="right")


def flex_fits(
    columns: Sequence[tuple[str, str]],
    rows: Sequence[tuple[str | None, Sequence[Cell]]],
    *,
    width: int,
    height: int,
    flex: int,
) -> bool:
    """Whether `fill_table` would show column `flex` whole in `width` cells (no cut)."""
    widths = [
        max([cell_len(label)] + [cell_len(str(cells[i])) for _, cells in rows])
        for i, (label, _) in enumerate(columns)
    ]
    scrollbar = SCROLLBAR if len(rows) > height - 1 else 0
    return room_left(width - scrollbar, widths[:flex] + widths[flex + 1 :]) >= widths[flex]


def fill_table(
    table: DataTable,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[tuple[str | None, Sequence[Cell]]],
    *,
    width: int | None = None,
    height: int = 0,
    flex: int = 0,
    maximum: int = 48,
    marks: int = 0,
) -> None:
    """Replace the table's columns and rows: (label, key) columns, (row key, cells) rows.

    Every column is added with its width given, measured here: an auto-width column keeps
    the widest cell it ever had, and a table drawn before it measures new cells keeps the
    old widths. Without `width` a column is as wide as its widest cell. With it, column
    `flex` gets what the others leave of `width` (less the scrollbar when the rows overflow
    `height`), at most `maximum`, and its longer cells are cut together by `fit_labels`
    (they are strings, whose first `marks` cells are a mark kept as is; `Named` cells keep
    their rest whole). String cells become Text, so names with brackets are never read as
    markup."""
    widths = [
        max([cell_len(label)] + [cell_len(str(cells[i])) for _, cells in rows])
        for i, (label, _) in enumerate(columns)
    ]
    if width is not None:
        scrollbar = SCROLLBAR if len(rows) > height - 1 else 0
        others = widths[:flex] + widths[flex + 1 :]
        widths[flex] = min(widths[flex], flex_width(width - scrollbar, others, maximum=maximum))
    if width is not None:
        named = [cells[flex] for _, cells in rows]
        pairs = [cell for cell in named if isinstance(cell, Named)]
        if named and len(pairs) == len(named):
            fitted = distinct_named(pairs, widths[flex])
        else:
            texts = [str(cell) for cell in named]
            short = fit_labels([text[marks:] for text in texts], widths[flex] - marks)
            fitted = [text[:marks] + name for text, name in zip(texts, short, strict=True)]
    table.clear(columns=True)
    for (label, key), column_width in zip(columns, widths, strict=True):
        table.add_column(label, key=key, width=column_width)
    for n, (row_key, cells) in enumerate(rows):
        shown = list(cells)
        if width is not None:
            shown[flex] = fitted[n]
        table.add_row(
            *(
                Text(terminal_safe(str(cell))) if isinstance(cell, str | Named) else cell
                for cell in shown
            ),
            key=row_key,
        )
