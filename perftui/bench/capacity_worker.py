"""The capacity search's child process: `python -m perftui.bench.capacity_worker`.

Reads one JSON object from stdin ({"request": a BenchmarkRequest of one configuration,
"objectives": [{"statistic", "bound_ms"}], "budget_s": the search's seconds}), measures the
configuration in a closed loop (the worker's own `measure_run`: the closed-loop maximum, and
where the search starts), then searches the rate (perftui.domain.traffic.capacity) on one
compiled model, sending each search run as a benchmark run of its own (its config's rate set,
its traffic figures and its latencies from arrival as samples), then how the search ended.
SIGINT or SIGTERM cancels: the search run in progress is dropped, the ones finished stand.
"""

from __future__ import annotations

import functools
import json
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from perftui.bench import protocol
from perftui.bench.inputs import InputSource, resolve_shapes, run_point
from perftui.bench.machine import cpu_reading, load_between
from perftui.bench.traffic import TrafficRun
from perftui.bench.worker import Cancellation, finished, measure_run, run_resolved
from perftui.domain.errors import one_line
from perftui.domain.records import BenchmarkRequest, RunResult
from perftui.domain.traffic.capacity import START_SHARE, Point, SearchPlan, search_capacity
from perftui.domain.traffic.objective import Objective
from perftui.engines import get_engine

Emit = Callable[[protocol.Event], None]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def search(
    request: BenchmarkRequest,
    objectives: tuple[Objective, ...],
    budget_s: float,
    emit: Emit,
    cancel: Cancellation,
) -> None:
    """The closed-loop run, then the search; ends with SearchEnded (unless the closed loop
    gave no rate to start from) and BenchmarkDone."""
    engine = get_engine(request.project.engine)
    model = request.project.model
    config = request.configs[0]
    source = functools.cache(
        lambda: InputSource.for_request(model, request.data, engine.model_inputs(model))
    )
    emit(protocol.RunStarted(0, 1, config))
    closed = measure_run(engine, request, 0, config, emit, cancel, source)
    emit(closed)
    if closed.run.status != "ok" or cancel.requested or closed.run.throughput_fps <= 0:
        emit(protocol.BenchmarkDone(cancel.requested))
        return
    closed_max = closed.run.throughput_fps / config.batch

    declared = engine.model_inputs(model)
    shapes = resolve_shapes(declared, config.batch, request.shapes, run_point(config))
    prepared = engine.prepare(model, request.project.device, config, shapes)
    inputs = source()
    samples = inputs.samples(prepared.inputs, shapes, request.seed)
    prepared.bind(samples[0], samples[1:])
    first_ms = prepared.infer_once() * 1000.0
    resolved = run_resolved(prepared, inputs, shapes)
    traffic = TrafficRun(prepared, arrival=config.arrival, seed=request.seed)

    index = 0
    measured: dict[str, Any] = {}

    def measure(rate: float, window_s: float) -> Any:
        nonlocal index
        index += 1
        asked = replace(config, rate=rate)
        emit(protocol.RunStarted(index, 0, asked))
        before, started_at = cpu_reading(), _now()
        measurement, figures = traffic.measured(
            rate, window_s, config.batch, lambda: cancel.requested
        )
        measured.update(
            config=asked,
            measurement=measurement,
            load=load_between(before, cpu_reading()),
            started_at=started_at,
        )
        return figures

    def on_point(point: Point) -> None:
        run = RunResult(
            config=measured["config"],
            first_inference_ms=first_ms,
            compile_ms=prepared.compile_ms,
            read_ms=prepared.read_ms,
            resolved=resolved,
            load=measured["load"],
            traffic=point.figures,
            project=request.project.name,
            started_at=measured["started_at"],
        )
        emit(finished(index, run, measured["measurement"]))

    plan = SearchPlan(start_rate=START_SHARE * closed_max, budget_s=budget_s)
    found = search_capacity(
        measure, objectives, plan, time.monotonic, lambda: cancel.requested, on_point
    )
    outcome = found.to_dict()
    del outcome["curve"]
    emit(protocol.SearchEnded(outcome))
    emit(protocol.BenchmarkDone(cancel.requested))


def main() -> None:
    emit = protocol.event_writer()

    message = json.loads(sys.stdin.readline())
    cancel = Cancellation()
    signal.signal(signal.SIGINT, cancel)
    signal.signal(signal.SIGTERM, cancel)
    objectives = tuple(
        Objective(str(o["statistic"]), float(o["bound_ms"])) for o in message["objectives"]
    )
    try:
        search(
            BenchmarkRequest.from_dict(message["request"]),
            objectives,
            float(message["budget_s"]),
            emit,
            cancel,
        )
    except Exception as error:  # the engine or the model refused the search's compile
        emit(protocol.Fatal(one_line(error)))


if __name__ == "__main__":
    from perftui.processes import die_with_parent

    die_with_parent()  # a worker never outlives the process that reads it
    main()
