"""A report (domain.report.document) as Markdown (tables a code host renders; charts as their
figures in a table) or as one self-contained HTML file: inline CSS and SVG, no script, no
link to anything, so it opens offline and survives being attached to an issue."""

from __future__ import annotations

from html import escape

from perftui.domain.cells import cell_width
from perftui.domain.charts.ticks import nice_axis
from perftui.domain.report.parts import Bars, Block, Report, Scatter, Table

FORMATS = ("md", "html")
COLOURS = ("#1f77b4", "#d62728")
"""Series A (or the one project) and B; each also has its own marker shape."""
SWEET = "#2ca02c"
"""The sweet spot: a filled circle of its own colour, as the Workbench draws it."""


# ---------------------------------------------------------------------- markdown


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or " "


def _md_table(table: Table) -> list[str]:
    out = [f"**{table.title}**", ""] if table.title else []
    headers = [_md_cell(h) for h in table.headers]
    rules = ["---:" if i in table.numeric else "---" for i in range(len(headers))]
    out.append("| " + " | ".join(headers) + " |")
    out.append("| " + " | ".join(rules) + " |")
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
    return [*out, ""]


def _md_block(block: Block) -> list[str]:
    if isinstance(block, Table):
        return _md_table(block)
    if isinstance(block, Bars):
        rows = tuple(
            (
                b.label,
                f"{b.value:,.1f}",
                f"{b.interval[0]:,.1f}–{b.interval[1]:,.1f}" if b.interval else "",
            )
            for b in block.bars
        )
        return _md_table(Table(block.title, ("", block.unit, "95 % CI"), rows, frozenset({1, 2})))
    points = tuple(
        (block.series[p.series], p.label, _x_text(p.x), f"{p.y:,.1f}", p.mark) for p in block.points
    )
    title = block.title + (f" (threshold {block.threshold:g} ms)" if block.threshold else "")
    if block.threshold_label or block.level_label:
        title = (
            block.title
            + f" ({'; '.join(filter(None, (block.threshold_label, block.level_label)))})"
        )
    headers = ("Project", "Config", block.x_label, block.y_label, "")
    return _md_table(Table(title, headers, points, frozenset({2, 3})))


def _x_text(x: float) -> str:
    """Three significant digits, never an exponent: 0.734, 12.3, 1,023 (a rate)."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def to_markdown(report: Report) -> str:
    out = [f"# {report.title}", ""]
    for section in report.sections:
        out += [f"## {section.title}", ""]
        out += [f"- {line}" for line in section.lines]
        if section.lines:
            out.append("")
        for block in section.blocks:
            out += _md_block(block)
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------------- html and svg


def _tick_text(tick: float) -> str:
    """A tick as a person reads it: '15,000' (never '1.5e+04'), '0.25'."""
    return f"{tick:,.0f}" if tick == int(tick) else f"{tick:,.4g}"


def _tick(x: float, y: float, text: str, anchor: str = "middle") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" class="tick" text-anchor="{anchor}">{text}</text>'


def _marker(series: int, x: float, y: float, colour: str, title: str = "") -> str:
    """A point's marker; `title`: what a pointer resting on it shows (SVG, no script)."""
    tip = f"<title>{escape(title)}</title>" if title else ""
    if series == 0:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}">{tip}</circle>'
    return (
        f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}">{tip}</rect>'
    )


Box = tuple[float, float, float, float]
"""(left, top, right, bottom) in the SVG's pixels."""
CHAR_WIDTH = 6.6
"""A generous width of one character of a point's 11 px label (wider than most glyphs, so
two labels judged apart never touch)."""
LABEL_SPOTS = ((9, -6, "start"), (9, 14, "start"), (-9, -6, "end"), (-9, 14, "end"),
               (0, -10, "middle"), (0, 20, "middle"))  # fmt: skip
"""Where a point's label may stand, in turn: right above, right below, left above, left
below, over it, under it (offsets of its baseline from the point, and its anchor)."""


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _label_spot(
    x: float, y: float, text: str, taken: list[Box], room: Box
) -> tuple[float, float, str, Box] | None:
    """The first of LABEL_SPOTS where `text` stays inside `room` and clear of every box
    `taken` (other labels, the markers); None where there is none."""
    width = cell_width(text) * CHAR_WIDTH
    for dx, dy, anchor in LABEL_SPOTS:
        tx, ty = x + dx, y + dy
        left = {"start": tx, "end": tx - width, "middle": tx - width / 2}[anchor]
        box = (left, ty - 10, left + width, ty + 3)
        inside = room[0] <= box[0] and box[2] <= room[2] and room[1] <= box[1] and box[3] <= room[3]
        if inside and not any(_overlaps(box, other) for other in taken):
            return tx, ty, anchor, box
    return None


def _svg_bars(block: Bars) -> str:
    width, row, left = 720, 26, 170
    height = row * len(block.bars) + 40
    axis = nice_axis(max((b.interval[1] if b.interval else b.value) for b in block.bars))
    scale = (width - left - 30) / axis.top
    parts = []
    for tick in axis.ticks:
        x = left + tick * scale
        parts.append(
            f'<line x1="{x:.1f}" y1="10" x2="{x:.1f}" y2="{height - 25}" class="grid"/>'
            + _tick(x, height - 8, _tick_text(tick))
        )
    for i, bar in enumerate(block.bars):
        y = 12 + i * row
        colour = COLOURS[bar.series]
        parts.append(
            f'<text x="{left - 8}" y="{y + 14}" text-anchor="end">{escape(bar.label)}</text>'
            f'<rect x="{left}" y="{y + 3}" width="{bar.value * scale:.1f}" height="16" '
            f'fill="{colour}"><title>{bar.value:,.1f} {escape(block.unit)}</title></rect>'
        )
        if bar.interval:
            lo, hi = (left + v * scale for v in bar.interval)
            parts.append(
                f'<line x1="{lo:.1f}" y1="{y + 11}" x2="{hi:.1f}" y2="{y + 11}" class="ci"/>'
                f'<line x1="{lo:.1f}" y1="{y + 6}" x2="{lo:.1f}" y2="{y + 16}" class="ci"/>'
                f'<line x1="{hi:.1f}" y1="{y + 6}" x2="{hi:.1f}" y2="{y + 16}" class="ci"/>'
            )
    return (
        f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(block.title)}">{"".join(parts)}</svg>'
    )


def _svg_scatter(block: Scatter) -> str:
    width, height, left, bottom = 720, 340, 70, 45
    xs = [p.x for p in block.points] + ([block.threshold] if block.threshold else [])
    ys = [p.y for p in block.points] + ([block.level] if block.level else [])
    x_axis, y_axis = nice_axis(max(xs)), nice_axis(max(ys))
    x_top, y_top = x_axis.top, y_axis.top
    plot_w, plot_h = width - left - 20, height - bottom - 15

    def at(x: float, y: float) -> tuple[float, float]:
        return left + x / x_top * plot_w, 15 + plot_h - y / y_top * plot_h

    parts = []
    for tick in x_axis.ticks:
        x, _ = at(tick, 0)
        parts.append(
            f'<line x1="{x:.1f}" y1="15" x2="{x:.1f}" y2="{15 + plot_h}" class="grid"/>'
            + _tick(x, height - 26, _tick_text(tick))
        )
    for tick in y_axis.ticks:
        _, y = at(0, tick)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" class="grid"/>'
            + _tick(left - 6, y + 4, _tick_text(tick), "end")
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle">'
        f"{escape(block.x_label)}</text>"
        f'<text x="14" y="{15 + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {15 + plot_h / 2})">{escape(block.y_label)}</text>'
    )
    if block.threshold:
        x, _ = at(block.threshold, 0)
        parts.append(
            f'<line x1="{x:.1f}" y1="15" x2="{x:.1f}" y2="{15 + plot_h}" class="threshold"/>'
            f'<text x="{x + 4:.1f}" y="26" class="tick">'
            f"{escape(block.threshold_label or f'≤ {block.threshold:g} ms')}</text>"
        )
    if block.level:
        _, y = at(0, block.level)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" class="threshold"/>'
            f'<text x="{left + plot_w - 4}" y="{y - 4:.1f}" class="tick" text-anchor="end">'
            f"{escape(block.level_label)}</text>"
        )
    # markers first; then labels where they fit: the named points (A, B, the sweet spot)
    # first, then from the highest throughput down, each clear of the others and inside the
    # chart; a label with no room is left out (its marker's tooltip and the table say it)
    spots = [
        (p, *at(p.x, p.y), f"{p.mark}: {p.label}" if p.mark else p.label) for p in block.points
    ]
    taken: list[Box] = [(x - 5, y - 5, x + 5, y + 5) for _, x, y, _ in spots]
    for p, x, y, label in spots:
        if "sweet" in p.mark:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="8" fill="{SWEET}"/>')
        parts.append(_marker(p.series, x, y, COLOURS[p.series], label))
    room = (2.0, 2.0, width - 2.0, 15 + plot_h)
    left_out = 0
    for _, x, y, label in sorted(spots, key=lambda spot: (not spot[0].mark, -spot[0].y)):
        found = _label_spot(x, y, label, taken, room)
        if found is None:
            left_out += 1
            continue
        tx, ty, anchor, box = found
        taken.append(box)
        parts.append(
            f'<text x="{tx:.1f}" y="{ty:.1f}" class="point" text-anchor="{anchor}">'
            f"{escape(label)}</text>"
        )
    legend = " ".join(
        f'<span class="key"><svg width="10" height="10">{_marker(i, 5, 5, COLOURS[i])}</svg> '
        f"{escape(name)}</span>"
        for i, name in enumerate(block.series)
    )
    if any("sweet" in p.mark for p in block.points):
        legend += (
            f' <span class="key"><svg width="12" height="12"><circle cx="6" cy="6" r="6" '
            f'fill="{SWEET}"/></svg> sweet spot</span>'
        )
    if left_out:
        legend += (
            f' <span class="key">{left_out} label(s) left out where they would overlap: a'
            " pointer on a point names it, the tables list every configuration</span>"
        )
    return (
        f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="{escape(block.title)}">{"".join(parts)}</svg><p class="legend">{legend}</p>'
    )


def _reasons(text: str) -> list[str]:
    """'a; b (c; d); a' -> ['a', 'b (c; d)']: split where no bracket is open, each once."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == ";" and depth == 0:
            found.append(text[start:i].strip())
            start = i + 1
    found.append(text[start:].strip())
    return list(dict.fromkeys(reason for reason in found if reason))


def _folded(text: str) -> str:
    """'noisy: r1; r2' as the word, its reasons folded under it (each once, counted)."""
    word, _, rest = text.partition(": ")
    reasons = _reasons(rest)
    if not reasons:
        return escape(text)
    items = "".join(f"<li>{escape(reason)}</li>" for reason in reasons)
    return (
        f"<details><summary>{escape(word)} ({len(reasons)} reason(s))</summary>"
        f"<ul>{items}</ul></details>"
    )


def _figure(text: str) -> str:
    """'923.9 (476.0–1371.7)': the figure, its interval on a line of its own (narrow)."""
    value, _, interval = text.partition(" (")
    if not interval:
        return escape(text)
    return f'{escape(value)}<br><span class="ci">({escape(interval)}</span>'


def _cell(table: Table, column: int, text: str) -> str:
    if column in table.folded:
        return f'<td class="folded">{_folded(text)}</td>'
    if column in table.numeric:
        return f'<td class="num">{_figure(text)}</td>'
    return f"<td>{escape(text)}</td>"


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
    body = "".join(
        "<tr>" + "".join(_cell(table, i, c) for i, c in enumerate(row)) + "</tr>"
        for row in table.rows
    )
    head_row = f"<thead><tr>{head}</tr></thead>" if any(table.headers) else ""
    return f"<table>{head_row}<tbody>{body}</tbody></table>"


def _html_block(block: Block) -> str:
    title = f"<h3>{escape(block.title)}</h3>" if block.title else ""
    if isinstance(block, Table):
        return title + _html_table(block)
    if isinstance(block, Bars):
        return title + (_svg_bars(block) if block.bars else "<p>No successful run.</p>")
    return title + (_svg_scatter(block) if block.points else "<p>No successful run.</p>")


STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
h3 { font-size: 1em; margin: 1.2em 0 .4em; }
table { border-collapse: collapse; margin: .4em 0; width: 100%; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: .2em .4em; text-align: left; vertical-align: top; }
td { overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num .ci { color: #666; font-size: 12px; }
td.folded { min-width: 7em; } td.folded ul { margin: .2em 0; padding-left: 1.1em; }
summary { cursor: pointer; }
th { background: #f2f2f2; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
svg .tick { fill: #666; font-size: 11px; } svg .point { font-size: 11px; }
svg .grid { stroke: #e3e3e3; } svg .ci { stroke: #222; stroke-width: 1.5; }
svg .threshold { stroke: #888; stroke-dasharray: 5 4; }
.legend .key { margin-right: 1.5em; }
"""


def to_html(report: Report) -> str:
    body = [f"<h1>{escape(report.title)}</h1>"]
    for section in report.sections:
        body.append(f"<h2>{escape(section.title)}</h2>")
        if section.lines:
            body.append("<ul>" + "".join(f"<li>{escape(x)}</li>" for x in section.lines) + "</ul>")
        body += [_html_block(block) for block in section.blocks]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(report.title)}</title><style>{STYLE}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )


def render(report: Report, fmt: str) -> str:
    """The report in `fmt` (FORMATS)."""
    return to_html(report) if fmt == "html" else to_markdown(report)
