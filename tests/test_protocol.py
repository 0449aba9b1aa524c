import numpy as np

from perftui.bench import protocol
from perftui.domain.records import LatencyStats, LayerProfile, RunConfig, RunResult


def roundtrip(event):
    line = protocol.encode(event)
    assert "\n" not in line
    return protocol.decode(line)


def test_every_event_survives_the_pipe():
    config = RunConfig(
        batch=4, threads=2, streams=2, requests="auto", hint="throughput", api="async"
    )
    assert roundtrip(protocol.RunStarted(1, 4, config)) == protocol.RunStarted(1, 4, config)
    assert roundtrip(protocol.PhaseChanged(0, "timed")) == protocol.PhaseChanged(0, "timed")
    tick = protocol.Progress(0, 1.5, 30, 0.4, 123.4, 7.5)
    assert roundtrip(tick) == tick
    assert roundtrip(protocol.BenchmarkDone(True)) == protocol.BenchmarkDone(True)
    assert roundtrip(protocol.Fatal("bad")) == protocol.Fatal("bad")


def test_finished_run_keeps_stats_layers_and_samples():
    run = RunResult(
        config=RunConfig(),
        iterations=3,
        duration_s=0.5,
        throughput_fps=6.0,
        latency_ms=LatencyStats(1, 2, 2, 3, 3, 3, 0.5, 0.25),
        layers=(LayerProfile("conv", "Convolution", "jit_avx2_I8", "I8", "executed", 0.4, ("a",)),),
        resolved={"streams": 1},
    )
    samples = np.array([1.5, 2.25, 3.0])
    back = roundtrip(protocol.RunFinished(2, run, samples))
    assert back.run == run
    assert np.allclose(back.samples_ms, samples)
    assert roundtrip(protocol.RunFinished(0, run, None)).samples_ms is None
