"""The HTML report as a browser shows it (issue 40, item 14): scatter labels that do not
collide nor leave the chart, a verdict cell that folds its reasons, tables that fit the
text's width; still no script and nothing fetched."""

from __future__ import annotations

import itertools
import re

from perftui.domain.report.parts import Point, Report, Scatter, Section, Table
from perftui.domain.report.render import render

WIDTH = 720
CHAR = 6.0
"""About the width of one character of an 11 px label in a sans-serif face."""


def label_boxes(html: str) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Each point label drawn, with the box its text takes."""
    found = []
    for m in re.finditer(
        r'<text x="([\d.-]+)" y="([\d.-]+)" class="point" text-anchor="(\w+)">([^<]*)</text>', html
    ):
        x, y, anchor, text = float(m[1]), float(m[2]), m[3], m[4]
        width = len(text) * CHAR
        left = {"start": x, "end": x - width, "middle": x - width / 2}[anchor]
        found.append((text, (left, y - 10, left + width, y + 3)))
    return found


def dense_scatter() -> Report:
    """The corner the issue met: many configurations a few ms and items/s apart, and the
    right-most point's label at the chart's edge."""
    points = [
        Point(2.5 + 0.15 * (n % 7), 700 + 25 * (n // 7), f"b{n % 4 + 1} t{n % 3} lat async", n % 2)
        for n in range(21)
    ]
    points.append(Point(21.6, 930, "b8 t4 lat async", 0, "A"))
    scatter = Scatter("Latency against throughput", "ms", "items/s", tuple(points), ("A", "B"))
    return Report("r", (Section("Results", (), (scatter,)),))


def test_scatter_labels_neither_collide_nor_leave_the_chart():
    html = render(dense_scatter(), "html")
    boxes = label_boxes(html)
    assert any(text == "A: b8 t4 lat async" for text, _ in boxes)  # a named point keeps its
    for (_, a), (_, b) in itertools.combinations(boxes, 2):
        assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    assert all(box[0] >= 0 and box[2] <= WIDTH for _, box in boxes), boxes
    left_out = 22 - len(boxes)
    assert left_out > 0 and f"{left_out} label(s) left out" in html
    assert html.count("<title>") >= 22  # every marker names its point on hover


def test_a_verdict_cell_says_its_word_and_folds_its_reasons_once():
    reasons = "; ".join(
        ["throughput varies 39% between repetitions"]
        + [f"repeat {n} (throughput varies 38% between windows; too noisy)" for n in (1, 2)]
        + ["throughput varies 39% between repetitions"]
    )
    table = Table("Runs", ("Config", "items/s", "Verdict"),
                  (("b8 t4", "923.9 (476.0–1371.7)", f"invalid: {reasons}"),),
                  frozenset({1}), frozenset({2}))  # fmt: skip
    html = render(Report("r", (Section("Results", (), (table,)),)), "html")
    cell = re.search(r'<td class="folded">(.*?)</td>', html)[1]
    assert cell.startswith("<details><summary>invalid (3 reason(s))</summary><ul>"), cell
    assert cell.count("<li>") == 3 and "too noisy)</li>" in cell  # split outside brackets
    # the interval under its figure, so the column stays narrow
    assert '923.9<br><span class="ci">(476.0–1371.7)</span>' in html


def test_tables_take_the_texts_width_and_the_report_fetches_nothing():
    html = render(dense_scatter(), "html")
    assert re.search(r"table \{[^}]*width: 100%", html)
    assert re.search(r"td \{[^}]*overflow-wrap: anywhere", html)
    assert "<script" not in html and not re.search(r"(src|href)=|https?://|@import", html)
