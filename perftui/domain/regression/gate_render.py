"""A regression gate's result (perftui.domain.regression.gate) as the CLI writes it: a table for the
terminal, one JSON document, a Markdown summary for a pull request and JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from perftui.domain.cells import cell_width, ljust
from perftui.domain.compare.environments import environment_rows
from perftui.domain.regression.gate import FAIL, INCONCLUSIVE, PASS, Decision, Schedule, StatVerdict

INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class GateSide:
    """What one side measured: its project, model, engine, device and configuration."""

    role: str
    """"baseline" or "candidate"."""
    project: str
    model: str
    engine: str
    device: str
    config: str
    environment: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GateReport:
    decision: Decision
    baseline: GateSide
    candidate: GateSide
    schedule: Schedule
    time_s: float
    """Each run's timed seconds."""
    elapsed_s: float
    command: str
    interrupted: bool = False
    stored: bool = True

    @property
    def outcome(self) -> str:
        return INTERRUPTED if self.interrupted else self.decision.outcome

    @property
    def settings(self) -> str:
        """The one configuration both sides were measured with."""
        a, b = self.baseline.config, self.candidate.config
        return f"{a}, both sides" if a == b else f"{a} (baseline) vs {b} (candidate)"


def _pct(x: float) -> str:
    return f"{x * 100:g} %"


def headline(report: GateReport) -> str:
    """The verdict in one sentence."""
    d = report.decision
    limit = _pct(d.max_slowdown)
    rounds = f"{d.rounds} round{'s' if d.rounds != 1 else ''}"
    if report.interrupted:
        return f"INTERRUPTED after {rounds}: no verdict"
    if d.outcome == PASS:
        return f"PASS: the candidate is not slower than the baseline by more than {limit}, {rounds}"
    if d.reason:
        return f"{d.outcome.upper()}: {d.reason}, {rounds}"
    if d.outcome == FAIL:
        slow = ", ".join(v.stat for v in d.stats if v.outcome == FAIL)
        return (
            f"FAIL: the candidate is slower than the baseline by more than {limit} ({slow}), "
            f"{rounds}"
        )
    return f"INCONCLUSIVE after {rounds}: neither slower nor within {limit}, at 95 % confidence"


def ratio_text(v: StatVerdict) -> str:
    if v.ratio is None or v.lo is None or v.hi is None:
        return "-"
    return f"{v.ratio:.3f} ({v.lo:.3f}-{v.hi:.3f})"


def limit_text(v: StatVerdict) -> str:
    return f">= {v.limit:.3f}" if v.higher_is_better else f"<= {v.limit:.3f}"


def _stat_rows(report: GateReport) -> list[tuple[str, str, str, str, str]]:
    return [
        (v.stat, ratio_text(v), limit_text(v), str(v.pairs), v.outcome)
        for v in report.decision.stats
    ]


def _looks_text(report: GateReport) -> str:
    d, s = report.decision, report.schedule
    looks = ", ".join(str(n) for n in s.looks)
    return (
        f"{d.rounds} round{'s' if d.rounds != 1 else ''} of {report.time_s:g} s runs, "
        "A and B alternately (A B, B A, ...), "
        f"judged from the rounds' pairs; looks after {looks} rounds, verdict at look {d.look} "
        f"(each bound at {d.confidence * 100:.2f} % one-sided confidence, so that all looks "
        f"together err at most 5 % each way); {report.elapsed_s:.0f} s in all"
    )


def gate_text(report: GateReport) -> str:
    """The table on stdout."""
    rows = [("statistic", "B/A (interval)", "limit", "pairs", "verdict"), *_stat_rows(report)]
    widths = [max(cell_width(row[i]) for row in rows) for i in range(5)]
    lines = [headline(report), f"settings: {report.settings}", ""]
    lines += ["  ".join(map(ljust, row, widths)) for row in rows]
    lines += ["", f"A (baseline):  {_side_line(report.baseline)}"]
    lines += [f"B (candidate): {_side_line(report.candidate)}", _looks_text(report)]
    if report.decision.advice:
        lines.append(f"to settle it: {report.decision.advice}")
    if not report.stored:
        lines.append("not stored (--no-save)")
    return "\n".join(lines)


def _side_line(side: GateSide) -> str:
    return f"{side.project}: {side.model} on {side.engine}/{side.device}, {side.config}"


def gate_document(report: GateReport) -> dict[str, Any]:
    """The --json document."""
    d = report.decision
    return {
        "verdict": report.outcome,
        "headline": headline(report),
        "settings": report.settings,
        "max_slowdown": d.max_slowdown,
        "rounds": d.rounds,
        "looks": list(report.schedule.looks),
        "look": d.look,
        "confidence_per_bound": d.confidence,
        "time_s": report.time_s,
        "elapsed_s": round(report.elapsed_s, 3),
        "statistics": [
            {
                "stat": v.stat,
                "verdict": v.outcome,
                "ratio": v.ratio,
                "interval": [v.lo, v.hi],
                "limit": v.limit,
                "pairs": v.pairs,
                "spread": v.spread,
            }
            for v in d.stats
        ],
        "advice": d.advice,
        "reason": d.reason,
        "baseline": _side_document(report.baseline),
        "candidate": _side_document(report.candidate),
        "command": report.command,
        "stored": report.stored,
    }


def _side_document(side: GateSide) -> dict[str, Any]:
    return {
        "project": side.project,
        "model": side.model,
        "engine": side.engine,
        "device": side.device,
        "config": side.config,
        "environment": dict(side.environment),
    }


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def gate_markdown(report: GateReport) -> str:
    """The summary for a pull request: verdict first, B/A per statistic, both sides and
    their environments, the rounds and the command that reproduces it."""
    a, b = report.baseline, report.candidate
    lines = [f"## perftui gate: {report.outcome.upper()}", "", f"**{_md(headline(report))}**", ""]
    lines += [f"Settings: {_md(report.settings)}", ""]
    lines += ["| statistic | B/A (interval) | limit | pairs | verdict |", "|---|---|---|---|---|"]
    lines += [f"| {' | '.join(_md(c) for c in row)} |" for row in _stat_rows(report)]
    if report.decision.advice:
        lines += ["", f"To settle it: {_md(report.decision.advice)}"]
    lines += ["", "### Baseline (A) and candidate (B)", "", "| | A (baseline) | B (candidate) |"]
    lines += ["|---|---|---|"]
    sides = (
        ("Project", a.project, b.project),
        ("Model", a.model, b.model),
        ("Engine / device", f"{a.engine}/{a.device}", f"{b.engine}/{b.device}"),
        ("Configuration", a.config, b.config),
    )
    env = [(r.label, r.a, r.b) for r in environment_rows(a.environment, b.environment)]
    lines += [f"| {' | '.join(_md(c) for c in row)} |" for row in (*sides, *env)]
    lines += ["", "### Rounds", "", _md(_looks_text(report)), ""]
    lines += ["### Reproduce", "", "```", report.command, "```", ""]
    return "\n".join(lines)


def gate_junit(report: GateReport) -> str:
    """JUnit XML: one test case per statistic; a fail is a <failure>, an inconclusive or
    interrupted statistic is <skipped> (the exit status says 3 or 130)."""
    stats = report.decision.stats
    failures = sum(v.outcome == FAIL for v in stats) if not report.interrupted else 0
    skipped = len(stats) - failures - sum(v.outcome == PASS for v in stats)
    if report.interrupted:
        skipped = len(stats)
    suite = ET.Element(
        "testsuite",
        name="perftui gate",
        tests=str(len(stats)),
        failures=str(failures),
        errors="0",
        skipped=str(skipped),
        time=f"{report.elapsed_s:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("verdict", report.outcome),
        ("max_slowdown", str(report.decision.max_slowdown)),
        ("rounds", str(report.decision.rounds)),
        ("settings", report.settings),
        ("baseline", _side_line(report.baseline)),
        ("candidate", _side_line(report.candidate)),
        ("command", report.command),
    ):
        ET.SubElement(props, "property", name=name, value=value)
    for v in stats:
        case = ET.SubElement(suite, "testcase", classname="perftui.gate", name=v.stat)
        message = f"{v.stat}: B/A {ratio_text(v)}, limit {limit_text(v)}, {v.pairs} pairs"
        if report.decision.reason:
            message = f"{v.stat}: {report.decision.reason}"
        if report.interrupted:
            ET.SubElement(case, "skipped", message=f"interrupted: {message}")
        elif v.outcome == FAIL:
            ET.SubElement(case, "failure", message=message, type="slower")
        elif v.outcome == INCONCLUSIVE:
            ET.SubElement(case, "skipped", message=f"inconclusive: {message}")
    ET.SubElement(suite, "system-out").text = gate_text(report)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
