"""The regression gate's decision rule (perftui.domain.regression.gate) and its reports: pure."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import RunResult
from perftui.domain.regression import gate
from perftui.domain.regression.gate import FAIL, INCONCLUSIVE, PASS, Schedule, decide, judge_stat
from perftui.domain.regression.gate_render import GateReport, GateSide, gate_junit, gate_markdown
from perftui.domain.regression.gate_stored import (
    GateSettings,
    gate_label,
    gate_note,
    latest_gate_label,
    parse_gate_label,
    stored_gate,
)
from tests.factories import run_result


@pytest.mark.parametrize(
    ("upper_tail", "df", "expected"),
    [(0.025, 1, 12.706), (0.025, 9, 2.262), (0.05, 4, 2.132), (0.005, 10, 3.169),
     (0.025, 30, 2.042), (0.0125, 7, 2.841)],
)  # fmt: skip
def test_t_quantile_matches_the_tables(upper_tail: float, df: int, expected: float):
    assert gate.t_quantile(upper_tail, df) == pytest.approx(expected, abs=1e-3)


def test_the_schedule_spends_five_percent_over_its_looks():
    schedule = Schedule.for_rounds(30)
    assert schedule.looks == (5, 10, 20, 30)
    spent = sum(schedule.alpha(k) for k in range(len(schedule.looks)))
    assert spent == pytest.approx(gate.ALPHA)
    assert Schedule.for_rounds(4).looks == (4,)
    two = Schedule.for_rounds(30, stats=2)
    assert sum(two.alpha(k) for k in range(4)) == pytest.approx(gate.ALPHA / 2)


def pairs(ratio: float, spread: float, n: int, seed: int = 1) -> list[tuple[float, float]]:
    """n rounds of a latency whose B is `ratio` times A, each pair off by about `spread`."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a = 1.0 * math.exp(rng.gauss(0, 0.2))  # the machine's drift falls on both sides
        out.append((a, a * ratio * math.exp(rng.gauss(0, spread))))
    return out


def test_slower_by_more_than_the_limit_fails_and_as_fast_passes():
    assert judge_stat("median", pairs(1.10, 0.01, 15), 0.05, 0.01).outcome == FAIL
    assert judge_stat("median", pairs(1.00, 0.01, 15), 0.05, 0.01).outcome == PASS
    near = judge_stat("median", pairs(1.05, 0.03, 6), 0.05, 0.01)
    assert near.outcome == INCONCLUSIVE and near.lo < 1.05 < near.hi


def test_throughput_falls_when_slower():
    values = [(b, a) for a, b in pairs(1.10, 0.01, 15)]  # throughput: B 1/1.1 of A
    verdict = judge_stat("throughput", values, 0.05, 0.01)
    assert verdict.outcome == FAIL
    assert verdict.ratio == pytest.approx(1 / 1.10, rel=0.02)
    assert verdict.hi < verdict.limit == pytest.approx(1 / 1.05)


def test_too_few_pairs_are_inconclusive():
    assert judge_stat("p99", [(1.0, None), (1.0, 2.0)], 0.05, 0.05).outcome == INCONCLUSIVE


def test_any_statistic_failing_fails_and_all_must_pass():
    schedule = Schedule.for_rounds(10, stats=2)
    slow = {"median": pairs(1.0, 0.01, 10), "p99": pairs(1.3, 0.01, 10)}
    assert decide(slow, 0.05, schedule, 2, final=True).outcome == FAIL
    unsure = {"median": pairs(1.0, 0.01, 10), "p99": pairs(1.05, 0.05, 10)}
    found = decide(unsure, 0.05, schedule, 2, final=True)
    assert found.outcome == INCONCLUSIVE and found.advice
    fine = {"median": pairs(1.0, 0.01, 10), "p99": pairs(0.9, 0.01, 10)}
    assert decide(fine, 0.05, schedule, 2, final=True).outcome == PASS


def test_the_error_rates_hold_with_early_looks():
    """Simulated gates at the schedule's looks: a candidate exactly at the limit fails (a
    wrong fail: it is not slower than that) at most 5 % of the time; likewise a candidate just
    past the limit passes (a wrong pass) at most 5 %."""
    schedule = Schedule.for_rounds(30)
    wrong_fail = wrong_pass = 0
    trials = 400
    for seed in range(trials):
        for truth, wrong in ((1.05, FAIL), (1.0501, PASS)):
            values = pairs(truth, 0.03, 30, seed)
            for look, n in enumerate(schedule.looks):
                found = decide({"median": values[:n]}, 0.05, schedule, look, n == 30)
                if found.settled:
                    break
            if found.outcome == wrong:
                wrong_fail += wrong == FAIL
                wrong_pass += wrong == PASS
    assert wrong_fail / trials <= 0.05 and wrong_pass / trials <= 0.05


@pytest.mark.parametrize("text", ["-5", "200", "0", "x", "150%"])
def test_a_slowdown_out_of_range_is_refused(text: str):
    with pytest.raises(InputError):
        gate.parse_max_slowdown(text)


def test_a_slowdown_reads_as_a_percentage():
    assert gate.parse_max_slowdown("5") == gate.parse_max_slowdown("5%") == 0.05


def test_the_label_carries_the_gate_settings():
    settings = GateSettings(0.05, ("median", "p99"), 30)
    label = gate_label("abc", settings)
    assert label.startswith("gate abc ")
    assert parse_gate_label(label) == settings
    assert parse_gate_label("alternated abc") is None


def test_a_stored_gate_is_judged_again_as_the_gate_judged_it():
    settings = GateSettings(0.05, ("median",), 30)
    label = gate_label("abc", settings)
    values = pairs(1.3, 0.01, 5)

    def side(which: int, offset: int, project: str) -> list[RunResult]:
        return [
            replace(run(i, v[which]), resolved={"label": label}, project=project,
                    started_at=f"2026-01-01T00:{2 * i + offset:02d}:00")
            for i, v in enumerate(values)
        ]  # fmt: skip

    baseline, candidate = side(0, 0, "base"), side(1, 1, "cand")
    found = stored_gate(label, candidate, baseline)
    assert found is not None and found.decision.outcome == FAIL
    assert found.baseline_runs == tuple(baseline) and found.decision.rounds == 5
    assert found.is_baseline("base") and not found.is_baseline("cand")
    ratio = next(v for v in found.decision.stats if v.stat == "median")
    assert found.ratios_text == f"median {ratio.ratio:.3f} ({ratio.lo:.3f}-{ratio.hi:.3f})"
    assert 1.2 < ratio.ratio < 1.4
    note = gate_note(found, "cand", "base")
    assert "FAIL, cand against base at 5 % slower, 5 rounds" in note
    assert note.endswith(f"(candidate/baseline {found.ratios_text})")
    assert latest_gate_label([*baseline, run(9, 1.0)]) == label


def run(repeat: int, median: float, status: str = "ok") -> RunResult:
    return run_result(1000 / median, median, status=status, repetition=repeat)


def test_rounds_pair_by_repeat_and_a_failed_run_gives_none():
    a = [run(0, 1.0), run(1, 1.1)]
    b = [run(1, 1.2), run(0, 1.0, status="failed")]
    assert gate.round_values(a, b, ["median"]) == {"median": [(1.0, None), (1.1, 1.2)]}


def report(outcome_pairs: dict[str, list[tuple[float, float]]]) -> GateReport:
    schedule = Schedule.for_rounds(10, len(outcome_pairs))
    decision = decide(outcome_pairs, 0.05, schedule, 2, final=True)
    side = GateSide("baseline", "a", "/m/a.onnx", "openvino", "CPU", "b1", {"openvino": "1"})
    return GateReport(decision, side, side, schedule, 1.0, 30.0, "perftui gate a b")


def test_junit_has_one_case_per_statistic_and_a_failure_for_a_fail():
    found = report({"median": pairs(1.3, 0.01, 10), "p99": pairs(1.0, 0.01, 10)})
    suite = ET.fromstring(gate_junit(found)).find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == {"median", "p99"}
    assert cases["median"].find("failure") is not None and cases["p99"].find("failure") is None


def test_markdown_says_the_verdict_first():
    text = gate_markdown(report({"median": pairs(0.9, 0.01, 10)}))
    first = text.splitlines()[0]
    assert first == "## perftui gate: PASS"
    assert "| median |" in text and "perftui gate a b" in text
