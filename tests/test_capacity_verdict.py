"""A capacity carries the verdict (perftui.domain.measurement.verdict, through each run's
figures) of the runs at its rate, and says it wherever it is shown: a capacity resting on a
run the machine's load made invalid is not shown as if it were sound."""

from __future__ import annotations

from collections.abc import Sequence

from perftui.cli.capacity_text import capacity_document, capacity_text, ratio_document
from perftui.domain.compare.capacity import capacity_ratio, ratio_lines
from perftui.domain.measurement.figures import Figures, run_figures
from perftui.domain.measurement.load import MachineLoad
from perftui.domain.records import (
    BenchmarkRequest,
    Project,
    RunConfig,
    RunResult,
    StoredBenchmark,
)
from perftui.domain.report.capacity import capacity_section
from perftui.domain.traffic.objective import parse_objectives
from perftui.domain.traffic.search import CapacitySearch
from perftui.domain.traffic.stored import StoredCapacity, latest_capacity
from perftui.domain.traffic.wording import capacity_line
from tests.factories import run_result, traffic

P99 = parse_objectives("p99=20ms")
PROJECT = Project("p", "/m.onnx", "openvino")
BUSY = MachineLoad(total_s=100.0, busy_s=70.0, own_s=10.0, steal_s=0.0)  # others: 60 %
WINDOWS = (100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8)


def search_run(rate: float, p99: float, at: int, load: MachineLoad | None = None) -> RunResult:
    return run_result(
        rate,
        config=RunConfig(rate=rate),
        traffic=traffic(rate, p99 / 3, p99),
        iterations=2000,
        window_fps=WINDOWS,
        benchmark_id="b",
        started_at=f"2026-11-29T10:{at:02d}:00+00:00",
        load=load,
    )


def figures(run: RunResult) -> Figures:
    return run_figures(run, None)


def stored(runs: Sequence[RunResult]) -> StoredCapacity:
    request = BenchmarkRequest(PROJECT, (RunConfig(),))
    search = CapacitySearch(P99, 60.0).ending(None, 30.0)
    found = latest_capacity([StoredBenchmark("b", "p", "t", request, search)], runs, figures)
    assert found is not None
    return found


def searched(load: MachineLoad | None) -> StoredCapacity:
    """Met at 100/s (confirmed by a second run there), failed at 200/s; the runs at 100/s
    measured under `load`."""
    return stored(
        [
            search_run(100.0, 5.0, 1, load=load),
            search_run(200.0, 80.0, 2),
            search_run(100.0, 5.0, 3, load=load),
        ]
    )


def test_a_capacity_on_an_invalid_run_says_so_in_text_and_json() -> None:
    found = searched(BUSY)
    assert (found.capacity.rate, found.capacity.hi, found.capacity.confirmed) == (100, 200, True)
    reason = "other processes used 60% of the CPUs"
    assert found.verdict is not None and found.verdict.status == "invalid"
    assert found.verdict.reasons == (reason,)  # both runs' reasons, once each
    text = capacity_text(PROJECT, found, figures)
    assert f"(confirmed), its runs invalid: {reason}" in text
    document = capacity_document(PROJECT, found, figures)
    assert document["capacity"] == 100.0
    assert document["capacity_verdict"] == {"status": "invalid", "reasons": [reason]}
    assert f"at p99 ≤ 20 ms, its runs invalid: {reason}," in capacity_line(found, figures)
    report = capacity_section("p", found, lambda _run: None)
    assert f"its runs invalid: {reason}." in report.lines[0]


def test_a_sound_capacity_shows_its_runs_verdict_too() -> None:
    found = searched(None)
    assert found.verdict is not None and found.verdict.status == "stable"
    assert "(confirmed), its runs stable" in capacity_text(PROJECT, found, figures)
    document = capacity_document(PROJECT, found, figures)
    assert document["capacity_verdict"] == {"status": "stable", "reasons": []}
    none_met = stored([search_run(200.0, 80.0, 1)])
    assert none_met.capacity.rate is None and none_met.verdict is None
    assert capacity_document(PROJECT, none_met, figures)["capacity_verdict"] is None


def test_a_ratio_from_an_invalid_capacity_says_it_is_not_to_be_trusted() -> None:
    ratio = capacity_ratio(searched(None), searched(BUSY))
    lines = ratio_lines(ratio, ("fp32", "int8"))
    assert lines[2] == "  B int8: 100 [100, 200] (confirmed, its runs invalid)"
    assert lines[-1] == (
        "  B/A is not to be trusted: it rests on invalid runs, B's (other processes used 60% of"
        " the CPUs)"
    )
    assert ratio_document(ratio)["b"]["capacity_verdict"]["status"] == "invalid"
    sound = ratio_lines(capacity_ratio(searched(None), searched(None)), ("fp32", "int8"))
    assert not any("not to be trusted" in line for line in sound)
