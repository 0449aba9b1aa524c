"""`perftui bench --rate` end to end (issue 42) on the sample MobileNet and a real engine: runs
well below the engine's capacity keep up and are stored and shown with their open-loop
figures; a rate far above it saturates and says so; a bad rate or arrival is refused in one
line, exit status 2, nothing stored, from the CLI as from the dashboard's form."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from perftui.bench import protocol
from perftui.bench.worker import Cancellation, measure_run
from perftui.domain.forms.bench import DEFAULTS, build_request
from perftui.domain.forms.fields import FieldError
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.engines import get_engine
from tests.cli_helpers import one_error_line, perftui
from tests.conftest import MOBILENET

BAD_RATES = ["0", "-5", "nan", "inf", "2e6", "abc", "100,,200"]
SHORT = ["--time", "1", "--iterations", "1", "--warmup", "5"]


@pytest.mark.parametrize("rate", BAD_RATES)
def test_a_bad_rate_is_one_line_and_stores_nothing(tmp_path: Path, rate: str) -> None:
    db = tmp_path / "db.json"
    line = one_error_line(perftui("bench", str(MOBILENET), f"--rate={rate}", db=db))
    assert line.startswith("perftui: error: --rate: rate "), line
    assert not db.exists()


def test_an_unknown_arrival_is_one_line_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "db.json"
    result = perftui("bench", str(MOBILENET), "--rate", "100", "--arrival", "zipf", db=db)
    assert "--arrival" in one_error_line(result) and "zipf" in one_error_line(result)
    assert not db.exists()


@pytest.mark.parametrize("rate", BAD_RATES)
def test_the_form_refuses_a_bad_rate_on_its_field(rate: str) -> None:
    with pytest.raises(FieldError) as error:
        build_request(Project("p", "/m.onnx", "openvino"), {**DEFAULTS, "rate": rate})
    assert error.value.field == "rate"


@pytest.mark.parametrize("engine", ["onnxruntime", "openvino"])
def test_rates_below_capacity_keep_up_and_one_far_above_saturates(
    tmp_path: Path, engine: str
) -> None:
    db = tmp_path / "db.json"
    one = ["--engine", engine, "--threads", "1"]
    args = ("bench", str(MOBILENET), *one, *SHORT, "--rate", "50,150,20000")
    result = perftui(*args, "--arrival", "constant", "--json", db=db, timeout=300)
    assert result.returncode == 0, result.stderr
    runs = {run["config"]["rate"]: run for run in json.loads(result.stdout)["runs"]}
    for rate in (50.0, 150.0):
        traffic = runs[rate]["traffic"]
        assert not traffic["saturated"], traffic["reasons"]
        assert traffic["offered_rate"] == pytest.approx(rate)
        lo, hi = traffic["achieved_ci"]
        assert lo <= rate <= hi, traffic
        assert traffic["latency_ms"]["p99"] >= traffic["latency_ms"]["median"] > 0
        assert traffic["latency_ci_ms"]["median"][0] is not None
        assert traffic["service_median_ms"] > 0
        # the run's own samples and statistics are from arrival: its traffic's
        assert runs[rate]["latency_ms"]["median"] == traffic["latency_ms"]["median"]
        assert runs[rate]["throughput_fps"] == pytest.approx(traffic["achieved_rate"])
        assert not any(r.startswith("saturated") for r in runs[rate]["verdict"]["reasons"])
    full = runs[20000.0]
    assert full["traffic"]["saturated"] and full["traffic"]["achieved_rate"] < 20000 / 2
    assert full["verdict"]["status"] == "invalid"
    assert any(r.startswith("saturated at 20000/s: ") for r in full["verdict"]["reasons"])

    shown = perftui("show", f"mobilenet_fp32-{engine}-CPU", db=db)
    assert shown.returncode == 0, shown.stderr
    _, _, open_loop = shown.stdout.partition("open loop: latency from each request's scheduled")
    rows = [line for line in open_loop.splitlines() if line[:1].isdigit()]
    rates = [next(word for word in row.split() if word.startswith("@")) for row in rows]
    assert rates == ["@50/s", "@150/s", "@20000/s"]
    assert all(" constant " in row for row in rows)  # each row names its configuration
    # a shared machine may wake the scheduler late (its own line then says so): only
    # whether the engine kept up is the engine's
    assert all(row.endswith(("  yes", "  schedule not kept")) for row in rows[:2]), rows
    assert "  saturated" in rows[2]
    assert "#3 invalid: saturated at 20000/s: " in shown.stdout


def on_mobilenet(config: RunConfig, time_s: float) -> BenchmarkRequest:
    """A request of `config` alone on the sample MobileNet with ONNX Runtime."""
    return BenchmarkRequest(
        project=Project("p", str(MOBILENET), "onnxruntime"),
        configs=(config,),
        budget=Budget(time_s=time_s, iterations=1, warmup=2),
    )


def measured(
    request: BenchmarkRequest,
    emit: Callable[[protocol.Event], None] = lambda _event: None,
    cancel: Cancellation | None = None,
) -> protocol.RunFinished:
    """The bench worker's run of the request's configuration, in this process."""
    config = request.configs[0]
    return measure_run(
        get_engine("onnxruntime"), request, 0, config, emit, cancel or Cancellation()
    )


def test_a_run_at_a_rate_ticks_its_progress_and_ends_as_a_rate_run() -> None:
    events: list[protocol.Event] = []
    finished = measured(on_mobilenet(RunConfig(threads=1, rate=200.0), 1.0), events.append)
    ticks = [e for e in events if isinstance(e, protocol.Progress)]
    assert len(ticks) >= 2, events  # every 0.25 s of the 1 s window
    assert [t.fraction for t in ticks] == sorted(t.fraction for t in ticks)
    assert ticks[-1].iterations > ticks[0].iterations > 0 and ticks[-1].latency_ms > 0
    run = finished.run
    assert run.status == "ok" and run.traffic is not None
    assert finished.samples_ms is not None and finished.samples_ms.size == run.iterations
    assert run.traffic.completed == run.iterations == run.traffic.requests


def test_a_cancelled_run_at_a_rate_keeps_no_traffic_figures_of_its_cut_schedule() -> None:
    import threading

    cancel = Cancellation()

    def cancel_once_timed(event: protocol.Event) -> None:
        if isinstance(event, protocol.Progress):
            threading.Timer(0.3, cancel).start()

    request = on_mobilenet(RunConfig(threads=1, rate=100.0), 30.0)
    finished = measured(request, cancel_once_timed, cancel)
    run = finished.run
    assert run.status == "cancelled" and run.iterations > 0
    assert run.traffic is None  # not "saturated": the rest of the schedule was never offered


def test_an_arrival_without_a_rate_is_refused_not_dropped(tmp_path: Path) -> None:
    db = tmp_path / "db.json"
    line = one_error_line(perftui("bench", str(MOBILENET), "--arrival", "constant", db=db))
    assert line.startswith("perftui: error: --arrival: arrivals are for runs at a rate")
    assert not db.exists()
    with pytest.raises(FieldError) as error:
        build_request(Project("p", "/m.onnx", "openvino"), {**DEFAULTS, "arrival": "constant"})
    assert error.value.field == "arrival"
    both = {**DEFAULTS, "rate": "closed,100", "arrival": "constant"}  # the rate's runs take it
    configs = build_request(Project("p", "/m.onnx", "openvino"), both).configs
    assert [(c.rate, c.arrival) for c in configs] == [(None, "poisson"), (100.0, "constant")]


def test_a_capacity_searchs_runs_are_recorded_as_a_bench_run_at_a_rate_is() -> None:
    """One way to record a run at a rate: the capacity child's search runs and the bench
    worker's run carry the same fields, each agreeing with its samples."""
    from dataclasses import fields, replace

    from perftui.bench.capacity_worker import search
    from perftui.domain.measurement.stats import latency_stats
    from perftui.domain.traffic.objective import Objective

    request = on_mobilenet(RunConfig(threads=1), 0.5)
    events: list[protocol.Event] = []
    search(request, (Objective("p99", 200.0),), 6.0, events.append, Cancellation())
    found = [e for e in events if isinstance(e, protocol.RunFinished) and e.run.config.rate]
    assert found, events
    at_rate = replace(request.configs[0], rate=found[0].run.config.rate)
    bench = measured(replace(request, configs=(at_rate,)))
    unset = {"memory", "id", "benchmark_id", "layers"}  # the search keeps no memory probe

    def present(run: object) -> set[str]:
        return {f.name for f in fields(run) if getattr(run, f.name) not in (None, (), {})}  # type: ignore[arg-type]

    assert present(bench.run) - unset == present(found[0].run) - unset
    for event in (bench, *found):
        run, samples = event.run, event.samples_ms
        assert run.status == "ok" and run.traffic is not None and samples is not None
        assert run.iterations == samples.size == run.traffic.completed
        assert run.latency_ms == latency_stats(samples) and "inputs" in run.resolved
