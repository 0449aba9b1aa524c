"""How an INT8 project was made and how far its outputs are from the FP32 model's, as markup
lines: in the project detail's Summary and in the optimize box's result."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape

if TYPE_CHECKING:
    from perftui.optimize.accuracy import AccuracyReport
    from perftui.optimize.notes import Optimization


CAUTION_WIDTH = 60
"""The caution's lines are cut to this width, each indented as the figures above it."""


def accuracy_lines(report: AccuracyReport, indent: str) -> list[str]:
    """The accuracy figures as markup lines: the headline, then one line per output if many."""
    inputs = report.inputs or "test"
    lines = [
        f"on {report.samples} {escape(inputs)} inputs: max |diff| {report.max_abs_diff:.3g}"
        f"   mean |diff| {report.mean_abs_diff:.3g}",
    ]
    second = f"{indent}cosine {escape(report.cosine_text())}"
    classifier = [o for o in report.judged if o.top1_agreement is not None]
    if classifier:
        worst = min(classifier, key=lambda o: o.top1_agreement or 0.0)
        second += (
            f"   top-1 agreement {100 * (worst.top1_agreement or 0.0):.0f}%"
            f" ({worst.top1_matches}/{worst.top1_rows})"
        )
    if report.reference_precision:
        second += f"   [dim]FP32 ran {escape(report.reference_precision)}[/]"
    lines.append(second)
    if len(report.outputs) > 1:
        for out in report.outputs:
            top1 = "" if out.top1_agreement is None else f"  top-1 {100 * out.top1_agreement:.0f}%"
            lines.append(
                f"{indent}{escape(out.name)}: max {out.max_abs_diff:.3g}  mean "
                f"{out.mean_abs_diff:.3g}  cos {out.cosine_text()}{top1}"
            )
    if caution := report.caution():
        words = fmt.said(caution)
        first, *rest = textwrap.wrap(words, CAUTION_WIDTH, initial_indent="caution: ")
        lines.append(f"{indent}[b]caution:[/]{escape(first.removeprefix('caution:'))}")
        lines += [f"{indent}{escape(line)}" for line in rest]
    return lines


def optimization_lines(opt: Optimization, width: int = 10) -> list[str]:
    """The Summary's lines about how an INT8 project was made (labels padded to `width`)."""
    pad = " " * width

    def label(text: str) -> str:
        return f"[b]{text}[/]" + " " * max(1, width - len(text))

    made = f"{opt.method}, {fmt.when(opt.created_at)}" if opt.created_at else opt.method
    lines = [f"{label('INT8 of')}{escape(opt.source or fmt.DASH)}  [dim]({escape(made)})[/]"]
    data = escape(opt.calibration_text())
    if opt.method == "dynamic":
        data = f"no calibration (dynamic); checked on {data}"
    else:
        data = f"calibrated on {data}"
    lines.append(f"{label('Data')}{data}")
    if opt.random:
        lines.append(f"{pad}[b]warning:[/] random data, so the figures below are only a")
        lines.append(f"{pad}consistency check, not the accuracy on real data")
    if opt.accuracy is not None:
        first, *rest = accuracy_lines(opt.accuracy, pad)
        lines.append(f"{label('Accuracy')}{first}")
        lines += rest
    else:
        lines.append(f"{label('Accuracy')}[dim]not recorded[/]")
    return lines
