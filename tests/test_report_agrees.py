"""Issue 40, item 5: the comparison report (the compare screen's `e`) agrees with itself: the
sweet spot's figures are its configuration's combined figures everywhere in it (the headline,
the marked point, the runs table) and respect the limit; no "one run per side" beside a
figure of several repetitions; the latest measurement of the compared configurations
alternately (`M`) is in it, said to be."""

from __future__ import annotations

from dataclasses import replace

from perftui.domain.compare import Side, compare_projects
from perftui.domain.records import Project, RunResult
from perftui.domain.report.document import comparison_report
from perftui.domain.report.parts import Report, Scatter, Table
from perftui.domain.report.render import to_markdown
from tests.sweet_data import A_RUNS, B_RUNS, THRESHOLD, repeats

PROJECTS = {
    Side.A: Project("fp32", "/models/fp32.onnx", "openvino", "CPU"),
    Side.B: Project("int8", "/models/int8.onnx", "openvino", "CPU"),
}


def report_of(a: list[RunResult], b: list[RunResult], **limits) -> tuple[Report, str]:
    c = compare_projects("fp32", a, "int8", b, **limits)
    report = comparison_report(c, PROJECTS, {Side.A: a, Side.B: b}, lambda _run: None)
    return report, to_markdown(report)


def blocks(report: Report) -> list:
    return [block for section in report.sections for block in section.blocks]


def test_the_sweet_spot_reads_the_same_everywhere_and_respects_the_limit():
    report, text = report_of(A_RUNS, B_RUNS, threshold_ms=THRESHOLD)
    line = next(x for x in text.splitlines() if x.startswith("- Sweet spot"))
    assert "fp32 b2 t:auto, 2,750.0 (" in line and "5 repetitions combined" in line, line
    (scatter,) = [b for b in blocks(report) if isinstance(b, Scatter)]
    (marked,) = [p for p in scatter.points if "sweet spot" in p.mark]
    assert marked.x <= THRESHOLD and f"at {marked.x:.3g} (" in line  # the same latency
    assert f"{marked.y:,.1f}" == "2,750.0"
    table = next(b for b in blocks(report) if isinstance(b, Table) and b.title == "A: fp32")
    row = next(r for r in table.rows if r[0] == "b2 t:auto")
    assert row[4].startswith("2,750.0 (") and row[3] == "5"  # the table's row, the same


def test_one_run_is_said_of_the_side_that_is_one_run():
    single = repeats("int8", "bench-one", 1, [1000.0])
    _, text = report_of(A_RUNS, single)
    assert "B (int8) is one run" in text and "one run per side" not in text


def test_the_latest_alternated_measurement_is_in_the_report():
    rounds = [
        replace(r, resolved={**r.resolved, "label": "alternated tok"}, id=f"{r.id}-alt")
        for r in [
            *repeats("fp32", "alt-a", 1, [2700.0, 2710.0, 2690.0]),
            *repeats("int8", "alt-b", 1, [1500.0, 1510.0, 1490.0]),
        ]
    ]
    a = A_RUNS + [r for r in rounds if r.project == "fp32"]
    b = B_RUNS + [r for r in rounds if r.project == "int8"]
    _, text = report_of(a, b, a_pinned="fp32-10", b_pinned="int8-10")
    assert "measured alternately, 3 rounds: B is 1.80x slower (" in text, text
    assert "measured apart, each side's runs: B is" in text
    assert "measure both again" not in text  # no advice to do what was done
