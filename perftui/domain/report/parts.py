"""The plain parts a report is made of (lines, tables, bar and scatter charts): what
perftui.domain.report.document builds and perftui.domain.report.render writes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Table:
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: frozenset[int] = frozenset()
    """Columns of figures (right-aligned)."""
    folded: frozenset[int] = frozenset()
    """Columns whose cells read 'word: reason; reason': the HTML shows the word and folds
    the reasons under it (a verdict's), each once."""


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    interval: tuple[float, float] | None = None
    series: int = 0
    """0 for A (or the one project), 1 for B: the bar's colour and marker."""


@dataclass(frozen=True)
class Bars:
    title: str
    unit: str
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str
    series: int = 0
    mark: str = ""
    """'A', 'B' or 'sweet spot' for the points a comparison names."""


@dataclass(frozen=True)
class Scatter:
    title: str
    x_label: str
    y_label: str
    points: tuple[Point, ...]
    series: tuple[str, ...]
    threshold: float | None = None
    """A vertical line at this x (the latency threshold)."""
    threshold_label: str = ""
    """What the vertical line is (default: '≤ THRESHOLD ms')."""
    level: float | None = None
    """A horizontal line at this y (a latency objective's bound)."""
    level_label: str = ""


Block = Table | Bars | Scatter


@dataclass(frozen=True)
class Section:
    title: str
    lines: tuple[str, ...] = ()
    blocks: tuple[Block, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Report:
    title: str
    sections: tuple[Section, ...]
