"""The benchmark child process: `python -m perftui.bench.worker`.

Reads one JSON object from stdin ({"request": BenchmarkRequest, "start": first run index,
"stop": the index after the last, default the end of the schedule}),
measures each run in turn and writes protocol events, one JSON line each, to what was its
stdout. Anything the engine libraries print goes to stderr instead, so it cannot corrupt the
event stream. SIGINT or SIGTERM cancels: the run in progress ends as "cancelled" with what it
measured so far, and no further run starts.
"""

from __future__ import annotations

import contextlib
import functools
import json
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timezone

from perftui.bench import protocol
from perftui.bench.inputs import InputSource, resolve_shapes, run_point
from perftui.bench.machine import cpu_reading, load_between
from perftui.bench.memory import MemoryProbe
from perftui.bench.recorder import Measurement, Tick, WindowRecorder
from perftui.bench.traffic import measure_at_rate
from perftui.domain.errors import one_line
from perftui.domain.measurement.stats import latency_stats
from perftui.domain.records import BenchmarkRequest, Budget, RunConfig, RunResult
from perftui.domain.resolved import Resolved
from perftui.engines import get_engine
from perftui.engines.base import Engine, Prepared


class Cancellation:
    def __init__(self) -> None:
        self.requested = False

    def __call__(self, *_: object) -> None:
        self.requested = True


def warm_up(prepared: Prepared, config: RunConfig, requests: int, cancel: Cancellation) -> None:
    """Untimed requests through the same path as the timed window: in async mode every
    request of the queue (or every runner thread) gets its own first inferences."""
    if requests <= 0 or cancel.requested:
        return
    if config.api == "async":
        budget = Budget(
            time_s=0.0, iterations=max(requests, int(prepared.resolved.get("requests") or 1))
        )
        prepared.run_async(WindowRecorder(budget, config.batch, cancelled=lambda: cancel.requested))
        return
    for _ in range(requests):
        if cancel.requested:
            break
        prepared.infer_once()


def measure_run(
    engine: Engine,
    request: BenchmarkRequest,
    index: int,
    config: RunConfig,
    emit: Callable[[protocol.Event], None],
    cancel: Cancellation,
    source: Callable[[], InputSource] = lambda: InputSource({}),
) -> protocol.RunFinished:
    """Measure one point of the matrix on the inputs `source()` gives (default: synthetic data
    by the default rule); failures become a failed RunResult, never an exception."""
    project = request.project
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if cancel.requested:  # cancelled before it began: no compile for a run nobody waits for
        run = RunResult(
            config=config,
            status="cancelled",
            error="cancelled",
            project=project.name,
            started_at=started_at,
        )
        return protocol.RunFinished(index, run, None)
    phase = "compile"
    memory = MemoryProbe(project.model)
    try:
        emit(protocol.PhaseChanged(index, phase))
        memory.before_read()
        declared = engine.model_inputs(project.model)
        shapes = resolve_shapes(declared, config.batch, request.shapes, run_point(config))
        prepared = engine.prepare(project.model, project.device, config, shapes)
        memory.after_compile()
        inputs = source()
        samples = inputs.samples(prepared.inputs, shapes, request.seed)
        prepared.bind(samples[0], samples[1:])

        phase = "first_inference"
        emit(protocol.PhaseChanged(index, phase))
        first_ms = prepared.infer_once() * 1000.0

        phase = "warmup"
        emit(protocol.PhaseChanged(index, phase))
        warm_up(prepared, config, request.budget.warmup, cancel)

        phase = "timed"
        emit(protocol.PhaseChanged(index, phase))

        def on_tick(tick: Tick) -> None:
            emit(protocol.Progress(index, **tick.__dict__))

        recorder = WindowRecorder(
            request.budget, config.batch, on_tick=on_tick, cancelled=lambda: cancel.requested
        )
        memory.window_start()
        before = cpu_reading()
        traffic = None
        if config.rate is not None:  # the open loop (issue 42); its profile stays closed-loop
            measured, traffic = measure_at_rate(
                prepared,
                config,
                request.budget,
                request.seed + request.scheduled(index)[0],  # each repetition its own draw
                on_tick,
                lambda: cancel.requested,
            )
        elif not cancel.requested:
            if config.api == "async":
                prepared.run_async(recorder)
            else:
                prepared.run_sync(recorder)
        after = cpu_reading()
        memory.window_end()
        load = load_between(before, after)
        if traffic is None:
            measured = recorder.measurement()
        # the timed window decides: a cancel that comes later (in the profile pass, which
        # runs to its end) leaves a complete measurement, not a cancelled one
        cancelled = cancel.requested or recorder.was_cancelled
        if cancelled:  # its schedule was cut short: rates and saturation would describe the cut
            traffic = None
        resolved = run_resolved(prepared, inputs, shapes)
        read_ms, compile_ms = prepared.read_ms, prepared.compile_ms
        del prepared  # release the compiled model before a profiling compile

        layers = None
        if request.profile and not cancel.requested and measured.latencies_ms.size:
            phase = "profile"
            emit(protocol.PhaseChanged(index, phase))
            try:
                profiled = engine.prepare(
                    project.model, project.device, config, shapes, profile=True
                )
                profiled.bind(samples[0])
                layers = tuple(profiled.layer_profile(request.budget.profile_iterations))
            except Exception as error:  # the measurement stands; say why there is no profile
                resolved["profile_error"] = one_line(error)

        run = RunResult(
            config=config,
            status="cancelled" if cancelled else "ok",
            error="cancelled before the stop condition was met" if cancelled else None,
            first_inference_ms=first_ms,
            compile_ms=compile_ms,
            read_ms=read_ms,
            layers=layers,
            resolved=resolved,
            load=load,
            memory=memory.result(),
            traffic=traffic,
            project=project.name,
            started_at=started_at,
        )
        return finished(index, run, measured)
    except Exception as error:
        run = RunResult(
            config=config,
            status="cancelled" if cancel.requested else "failed",
            error=f"{one_line(error)} (during {phase.replace('_', ' ')})",
            memory=memory.result(),
            project=project.name,
            started_at=started_at,
        )
        return protocol.RunFinished(index, run, None)


def run_resolved(
    prepared: Prepared, inputs: InputSource, shapes: Mapping[str, tuple[int, ...]]
) -> Resolved:
    """What a run ran with (`RunResult.resolved`): the engine's report and the inputs'."""
    resolved = prepared.resolved.copy()
    resolved["inputs"] = inputs.record(prepared.inputs, shapes)
    if inputs.data is not None:
        resolved["data"] = inputs.data.record()
    return resolved


def finished(index: int, run: RunResult, measured: Measurement) -> protocol.RunFinished:
    """The event that hands back `run` with the figures of its timed window, `measured`
    (requests, span, throughput, latency statistics, windows); its latencies its samples."""
    latencies = measured.latencies_ms
    run = replace(
        run,
        iterations=int(latencies.size),
        duration_s=measured.duration_s,
        throughput_fps=measured.throughput_fps,
        latency_ms=latency_stats(latencies) if latencies.size else None,
        window_fps=measured.window_fps,
    )
    return protocol.RunFinished(index, run, latencies if latencies.size else None)


def run_request(
    request: BenchmarkRequest,
    start: int,
    emit: Callable[[protocol.Event], None],
    stop: int | None = None,
) -> None:
    """Measure the scheduled runs from `start` up to `stop` (default: to the end); the
    parent gives each repetition a worker of its own."""
    cancel = Cancellation()
    signal.signal(signal.SIGINT, cancel)
    signal.signal(signal.SIGTERM, cancel)
    try:
        engine = get_engine(request.project.engine)
    except Exception as error:
        emit(protocol.Fatal(one_line(error)))
        return
    # the engine's device plugin loads here, not inside the first run's memory figures; a
    # device that fails is reported by the first run
    with contextlib.suppress(Exception):
        engine.devices()

    @functools.cache
    def source() -> InputSource:
        """Read once, by the first run that starts (a cancelled one reads nothing)."""
        model = request.project.model
        return InputSource.for_request(model, request.data, engine.model_inputs(model))

    total = request.total_runs
    for index in range(start, total if stop is None else min(stop, total)):
        _, config = request.scheduled(index)
        emit(protocol.RunStarted(index, total, config))
        # a cancel before the first run still records that run, as cancelled
        emit(measure_run(engine, request, index, config, emit, cancel, source))
        if cancel.requested:
            break
    emit(protocol.BenchmarkDone(cancel.requested))


def main() -> None:
    emit = protocol.event_writer()

    message = json.loads(sys.stdin.readline())
    stop = message.get("stop")
    run_request(
        BenchmarkRequest.from_dict(message["request"]),
        int(message.get("start", 0)),
        emit,
        None if stop is None else int(stop),
    )


if __name__ == "__main__":
    from perftui.processes import die_with_parent

    die_with_parent()  # a worker never outlives the process that reads it
    main()
