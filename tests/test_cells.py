"""Widths in terminal cells: wide characters (CJK, emoji) take two, combining marks none; the
CLI's tables align by them and `cut` cuts by them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from perftui.cli.projects import fitted_table
from perftui.domain.cells import cell_width, take
from perftui.domain.errors import cut
from perftui.domain.records import Project
from perftui.store.database import Store
from tests.cli_helpers import perftui
from tests.tui.conftest import fill_store, make_run

WIDE = "模型-日本"


@pytest.mark.parametrize(
    ("text", "cells"),
    [("abc", 3), (WIDE, 9), ("e\u0301", 1), ("🚀x", 3), ("a\u200db", 2), ("", 0)],
)
def test_cell_width(text: str, cells: int) -> None:
    assert cell_width(text) == cells


def test_take_never_splits_a_wide_character_or_strands_a_mark() -> None:
    assert take(WIDE, 3) == "模"
    assert take(WIDE, 5) == "模型-"
    assert take(WIDE, 4, from_end=True) == "日本"
    assert take("xe\u0301", 1, from_end=True) == "e\u0301"
    assert take("x模\u0301", 1, from_end=True) == ""


@pytest.mark.parametrize("width", range(1, 12))
@pytest.mark.parametrize("middle", [False, True])
def test_cut_fits_in_cells(width: int, middle: bool) -> None:
    name = "日本語のモデル-resnet50-int8"
    shown = cut(name, width, middle=middle)
    assert cell_width(shown) <= width
    assert shown.endswith("int8") or not middle or width < 9


def _columns(dashes: str) -> list[tuple[int, int]]:
    """(first cell, width) of each column, read from the table's line of dashes."""
    spans, start = [], None
    for i, char in enumerate(dashes + " "):
        if char == "-" and start is None:
            start = i
        elif char != "-" and start is not None:
            spans.append((start, i - start))
            start = None
    return spans


def _cells(line: str) -> list[str]:
    """The line as terminal cells: a wide character, then an empty cell for its right half."""
    cells: list[str] = []
    for char in line:
        cells.append(char)
        cells.extend([""] * (cell_width(char) - 1))
    return cells


def test_projects_align_a_wide_name_with_the_others(tmp_path: Path) -> None:
    db = tmp_path / "db.json"
    fill_store(db)
    store = Store(db)
    store.add_project(Project(WIDE, "/m/model.onnx", "onnxruntime"))
    store.add_run(replace(make_run(WIDE, 2, 1, 1234.5, 7), id="wide-2-1-7"))
    result = perftui("projects", db=db)
    assert result.returncode == 0, result.stderr
    header, dashes, *rows = result.stdout.splitlines()
    spans = _columns(dashes)
    assert len(spans) == 12  # every column (a pipe keeps them all)
    assert any(row.startswith(WIDE) for row in rows)
    for row in [header, *rows]:
        cells = _cells(row)
        for start, _ in spans[1:]:
            # every column starts after the same two separating cells in every row
            assert cells[start - 2 : start] == [" ", " "], (row, start)
        name = "".join(cells[: spans[0][1]]).rstrip()
        assert name in {"project", WIDE, "net-fp32", "net-int8", "empty-project"}, row


def test_a_wide_name_is_cut_to_fit_the_terminal() -> None:
    headers = ("project", "fps")
    rows = [[WIDE * 8, "1.0"], ["net", "2.0"]]
    text = fitted_table(headers, rows, {1}, 40)
    assert max(cell_width(line) for line in text.splitlines()) <= 40
