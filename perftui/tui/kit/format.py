"""How numbers, times and paths are written in the dashboard (presentation only)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from perftui.domain import units
from perftui.domain.forms.bench import LABELS
from perftui.domain.forms.fields import in_form
from perftui.domain.measurement.cost import cost_ci_text, run_cost, run_price
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.measurement.verdict import INVALID, NOISY, STABLE
from perftui.domain.records import RunResult
from perftui.engines import CAPABILITIES
from perftui.tui.kit.fit import cut

DASH = "—"


def escape(text: str) -> str:
    """Text to put inside Textual content markup: every '[' is escaped, so a name, path, error
    or typed value never opens (or closes) a tag, wherever it stands in the line. (Rich's
    `escape` only escapes what looks like a Rich tag, which leaves e.g. a lone '[' or
    'x[ 1]' to Textual's parser.)"""
    return text.replace("[", "\\[")


OPTIMIZE_LABELS = {
    "--method": "Method",
    "--calibration": "Calibration",
    "--samples": "Samples",
    "--name": "Name",
}
"""The optimize dialog's fields, by the flags of `perftui optimize`."""


TUNE_LABELS = {"--max-latency": "Max latency", "--max-memory": "Max memory", "--space": "Space"}
"""The tune form's fields, by the flags of `perftui tune`."""
DASHBOARD_WORDS = (
    ("`perftui compare A B --measure` (", "Measure, M on the compare summary ("),
    ("`perftui compare A B --measure`", "Measure (M on the compare summary)"),
    ("`perftui compare --measure`", "Measure (M on the compare summary)"),
    ("`perftui bench ... --profile`", "the benchmark form's Profile box"),
    ("(--calibration DIR)", "(a Calibration folder)"),
    ("--calibration DIR", "a Calibration folder"),
    ("use --calibration with", "use a Calibration folder with"),
)
"""Commands and flags a CLI user types, as the dashboard's keys and fields say them."""


QUANTIZERS_TEXT = ", ".join(
    f"{c.quantizer_title} for {c.title} projects" for c in CAPABILITIES.values()
)
"""What makes a project's INT8 version, for each engine (perftui.optimize.quantize)."""


def quantizer(engine: str) -> str:
    """What makes the INT8 version of a project on `engine` ('NNCF' for OpenVINO); every
    engine's for a name no engine has."""
    found = CAPABILITIES.get(engine)
    return found.quantizer_title if found else QUANTIZERS_TEXT


ENGINE_CELLS = 8
"""The widest engine name a table writes whole ("openvino"); a wider one gets its short form."""


def engine_cell(engine: str, narrow: bool = False) -> str:
    """An engine in a table: its name, or its short form ("ort") where the name is wider than
    ENGINE_CELLS or the table is `narrow`; a name no engine has, as stored."""
    found = CAPABILITIES.get(engine)
    if found is None:
        return engine
    return found.short if narrow or len(engine) > ENGINE_CELLS else engine


def said(message: str) -> str:
    """A message from the lower floors (which name settings by their CLI flags and commands)
    in the dashboard's words: a command as its key, each flag as the field's label."""
    for cli, words in DASHBOARD_WORDS:
        message = message.replace(cli, words)
    return in_form(message, LABELS | OPTIMIZE_LABELS | TUNE_LABELS)


def fps(value: float | None) -> str:
    """Items per second: '1,234' above 100, else 3 significant digits."""
    if value is None:
        return DASH
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def ms(value: float | None) -> str:
    """Milliseconds as perftui.domain.units writes them, whole from 100 ms (narrow columns)."""
    return units.ms(value, missing=DASH, whole_from_100=True)


def pct(share: float | None) -> str:
    return DASH if share is None else f"{share * 100:.1f}%"


def bar(share: float, width: int) -> str:
    """A share in [0, 1] as a text bar of at most `width` cells (eighth-block resolution)."""
    eighths = round(max(0.0, min(1.0, share)) * width * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + (" ▏▎▍▌▋▊▉"[rest] if rest else "")


def count(value: float | None, unit: str = "") -> str:
    """1234567 -> '1.23 M' (k, M, G, T)."""
    if value is None:
        return DASH
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {suffix}{unit}"
    return f"{value:.0f} {unit}".rstrip()


def size(nbytes: float | None) -> str:
    if nbytes is None:
        return DASH
    for factor, suffix in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if nbytes >= factor:
            return f"{nbytes / factor:.1f} {suffix}"
    return f"{nbytes:.0f} B"


def when(stamp: str | None, *, seconds: bool = False) -> str:
    """'2025-01-31T12:00:05+00:00' -> '2025-01-31 12:00' (as stored, UTC)."""
    if not stamp:
        return DASH
    return stamp.replace("T", " ")[: 19 if seconds else 16]


def shape(dims: Sequence[int | str]) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


def short_path(path: str) -> str:
    """A path relative to the current directory when it is below it, else as given."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


TOAST_CELLS = 37
"""What a toast's line holds at 80 columns (half the screen, less its border and padding)."""


def folder(path: str | Path, width: int = TOAST_CELLS) -> str:
    """A folder as a person reads it in `width` cells: below the current one relative
    ('./out'), below the home '~/...', and a path still too wide cut in the middle so that
    its last folder (the one that tells it apart) stays whole."""
    path = Path(path).absolute()
    here, home = Path.cwd(), Path.home()
    if path != here and path.is_relative_to(here):
        text = f"./{path.relative_to(here)}"
    elif path.is_relative_to(home):
        text = str(Path("~") / path.relative_to(home))
    else:
        text = str(path)
    if len(text) <= width:
        return text
    last = path.name
    if len(last) + 2 >= width:
        return cut(text, width, middle=True)
    return cut(text[: -len(last)], width - len(last), middle=True) + last


def written(paths: list[tuple[Path, str]], width: int = TOAST_CELLS) -> str:
    """Where files went, in lines of `width` cells: the folder on a line of its own, then
    the file names (whole: they are what one looks for), one kind each; files that share a
    name (a report's .md and .html) share the line of their stem."""
    where = folder(paths[0][0].parent, width - len("in :"))
    stems = dict.fromkeys(path.stem for path, _ in paths)
    lines = [f"in {where}:"]
    for stem in stems:
        kinds = [(path.suffix, kind) for path, kind in paths if path.stem == stem]
        if len(kinds) == 1:
            lines.append(f"{stem}{kinds[0][0]}" + (f" ({kinds[0][1]})" if kinds[0][1] else ""))
        else:
            lines.append(stem)
            lines.append(", ".join(f"{suffix} ({kind})" for suffix, kind in kinds))
    return "\n".join(lines)


def model_name(path: str) -> str:
    return Path(path).name


VERDICT_MARKS = {STABLE: "✓", NOISY: "~", INVALID: "✗"}
VERDICT_LEGEND = "✓ stable, ~ noisy, ✗ invalid"
"""The verdict column's marks: each reads without colour; F1 help and the notices say the
reasons."""


def verdict_mark(status: str | None) -> str:
    return DASH if status is None else VERDICT_MARKS.get(status, "?")


def verdict_word(status: str) -> str:
    """'stable', 'noisy', 'INVALID' (capitals: the one that must not be missed)."""
    return status.upper() if status == INVALID else status


def verdict_or_status(status: str, verdict: str) -> str:
    """A finished run's verdict word; the status of one that did not finish (failed,
    cancelled), which says more than INVALID."""
    return verdict_word(verdict) if status == "ok" else status


def fps_ci(value: float | None, interval: Interval | None) -> str:
    """Items per second with the 95 % interval: '812 ±3%'."""
    return DASH if value is None else fps(value) + units.spread_text(interval)


def ms_ci(value: float | None, interval: Interval | None) -> str:
    """Milliseconds with the 95 % interval: '4.12 ±2%'."""
    return DASH if value is None else ms(value) + units.spread_text(interval)


def run_cost_ci(run: RunResult, throughput: Interval | None) -> str:
    """A run's cost per million inferences with the 95 % interval its `throughput`'s gives:
    '0.412 ±3%' ('-' where the run has no price)."""
    return cost_ci_text(run_cost(run), throughput, run_price(run))
