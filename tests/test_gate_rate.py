"""`perftui gate --rate`: a side that did not keep up at the rate decides the gate with its
reason instead of a B/A of latencies that grow with the window (the candidate fails, a
baseline alone leaves it inconclusive); throughput is not gated at a rate."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from perftui.domain.regression.gate import (
    FAIL,
    INCONCLUSIVE,
    PASS,
    Schedule,
    decide,
    round_values,
    saturation,
)
from tests.cli_helpers import one_error_line, perftui
from tests.conftest import MOBILENET, SAMPLES
from tests.traffic_runs import traffic_run


def _rounds(rate: float, service_s: float, n: int = 6) -> list:
    return [replace(traffic_run(rate, service_s)[0], repetition=i) for i in range(n)]


def test_a_candidate_that_saturates_fails_with_its_reason() -> None:
    a, b = _rounds(100.0, 0.002), _rounds(600.0, 0.002)  # B: offered more than it serves
    values = round_values(a, b, ["p99"])
    found = decide(values, 0.05, Schedule.for_rounds(6), 0, True, saturation(a, b))
    assert found.outcome == FAIL
    assert found.reason.startswith("the candidate did not keep up at 600/s in 6 of 6 rounds (")
    assert found.stats[0].outcome == FAIL and found.stats[0].ratio is None


def test_a_baseline_that_saturates_alone_leaves_it_inconclusive() -> None:
    a, b = _rounds(600.0, 0.002), _rounds(100.0, 0.002)
    values = round_values(a, b, ["p99"])
    found = decide(values, 0.05, Schedule.for_rounds(6), 0, True, saturation(a, b))
    assert found.outcome == INCONCLUSIVE and found.reason.startswith("the baseline")
    assert "a lower --rate" in found.advice


def test_sides_that_kept_up_are_judged_by_their_latencies() -> None:
    a, b = _rounds(100.0, 0.002), _rounds(100.0, 0.002)
    assert saturation(a, b) == ("", "")
    values = round_values(a, b, ["p99"])
    found = decide(values, 0.05, Schedule.for_rounds(6), 0, True, saturation(a, b))
    assert found.outcome == PASS and found.reason == ""


def test_one_saturated_round_of_six_is_no_verdict_of_its_own() -> None:
    a = _rounds(100.0, 0.002)
    b = [*_rounds(100.0, 0.002, 5), replace(traffic_run(600.0)[0], repetition=5)]
    assert saturation(a, b) == ("", "")


def test_a_gate_at_a_rate_the_candidate_cannot_serve_fails_end_to_end(tmp_path: Path) -> None:
    db = tmp_path / "db.json"
    int8 = SAMPLES / "mobilenet_int8.onnx"
    common = ["--engine", "onnxruntime", "--threads", "1", "--rounds", "3", "--time", "0.3"]
    result = perftui(
        "gate", str(MOBILENET), str(int8), *common, "--rate", "20000", "--stat", "p99",
        "--json", db=db, timeout=300,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    assert document["verdict"] == FAIL
    assert document["reason"].startswith("the candidate did not keep up at 20000/s")
    assert document["headline"].startswith("FAIL: the candidate did not keep up")
    assert "@20000/s" in document["settings"]
    runs = json.loads(perftui("show", "mobilenet_int8-onnxruntime-CPU", "--json", db=db).stdout)
    assert all(run["traffic"]["saturated"] for run in runs["runs"])


def test_throughput_is_not_gated_at_a_rate(tmp_path: Path) -> None:
    db = tmp_path / "db.json"
    int8 = SAMPLES / "mobilenet_int8.onnx"
    result = perftui(
        "gate", str(MOBILENET), str(int8), "--rate", "100", "--stat", "throughput", db=db
    )
    assert one_error_line(result).startswith("perftui: error: --stat throughput: at 100/s")
    assert not db.exists()
