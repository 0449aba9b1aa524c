"""A run's `resolved` (domain.records.Resolved): what each engine says it ran with, one
meaning per key on both, and older stored runs read into the same meanings without their
files being rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from perftui.domain.charts.series import model_summary
from perftui.domain.records import RunConfig, RunResult
from perftui.domain.resolved import read_resolved
from perftui.engines import get_engine
from tests.conftest import openvino_cpu_precision
from tests.test_engines import ENGINES, CountingRecorder, _prepare, _tiny_model


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny_model(tmp_path_factory.mktemp("models") / "tiny.onnx", "N")


@pytest.mark.engine
@pytest.mark.parametrize(("threads", "said"), [(0, None), (2, 2)])
def test_onnxruntime_says_none_for_threads_it_chose_and_has_no_hint(
    threads: int, said: int | None, tiny: Path
):
    prepared = _prepare(get_engine("onnxruntime"), tiny, RunConfig(threads=threads))
    assert prepared.resolved["threads"] == said
    assert prepared.resolved["hint"] is None and prepared.resolved["precision"] == "model"


def test_older_runs_words_for_not_said_read_as_none():
    stored = {"threads": "auto", "hint": "n/a (onnxruntime)", "requests": 2, "streams": 1}
    assert read_resolved(stored) == {"threads": None, "hint": None, "requests": 2, "streams": 1}
    assert read_resolved({"threads": 4, "hint": "latency"}) == {"threads": 4, "hint": "latency"}
    assert read_resolved(None) == {}


def test_a_stored_run_reads_the_same_through_its_record():
    old = RunResult(RunConfig(threads=0), resolved={"threads": "auto"}).to_dict()  # type: ignore[typeddict-item]
    run = RunResult.from_dict(old)
    assert run.resolved["threads"] is None
    assert RunResult.from_dict(run.to_dict()) == run
    assert dict(model_summary(run).settings)["threads"] == "auto"
    told = RunResult.from_dict({**old, "resolved": {"threads": 8}})
    assert dict(model_summary(told).settings)["threads"] == "auto (8)"


@pytest.mark.engine
@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("api", ["sync", "async"])
@pytest.mark.parametrize("batch", [1, 4])
def test_runs_fill_resolved_settings(name: str, api: str, batch: int, tiny: Path) -> None:
    engine = get_engine(name)
    prepared = _prepare(engine, tiny, RunConfig(batch=batch, threads=1, api=api))
    assert prepared.read_ms >= 0 and prepared.compile_ms > 0
    assert prepared.inputs[0].shape == (batch, 3, 16, 16)
    assert prepared.infer_once() > 0

    recorder = CountingRecorder(12)
    if api == "async":
        prepared.run_async(recorder)
    else:
        prepared.run_sync(recorder)
    assert recorder.began
    # async: the requests in flight when done() turned true are recorded too
    assert 12 <= len(recorder.latencies) <= 12 + prepared.resolved["requests"]
    assert all(0 < lat < 1.0 for lat in recorder.latencies)

    resolved = prepared.resolved
    assert resolved["threads"] == 1
    assert resolved["shapes"] == {"x": [batch, 3, 16, 16]}
    assert resolved["streams"] == 1
    if api == "sync":
        assert resolved["requests"] == 1
    else:
        assert resolved["requests"] >= 1
    if name == "openvino":
        assert resolved["hint"] == "latency"
        assert resolved["precision"] == openvino_cpu_precision()
    else:
        assert resolved["hint"] is None
        assert resolved["requests"] == (1 if api == "sync" else 2)


@pytest.mark.engine
def test_openvino_maps_config_to_its_properties(tiny: Path) -> None:
    engine = get_engine("openvino")
    config = RunConfig(threads=2, streams=2, requests=3, hint="throughput", api="async")
    prepared = _prepare(engine, tiny, config)
    assert prepared.resolved["streams"] == 2
    assert prepared.resolved["threads"] == 2
    assert prepared.resolved["requests"] == 3
    assert prepared.resolved["hint"] == "throughput"
    # what the compiled model uses, not what was asked: one thread cannot run two streams
    clamped = _prepare(engine, tiny, RunConfig(threads=1, streams=2))
    assert clamped.resolved["streams"] == 1
    recorder = CountingRecorder(9)
    prepared.run_async(recorder)
    assert len(recorder.latencies) >= 9

    from perftui.engines.openvino_config import compile_config

    assert compile_config(RunConfig(hint="none"), profile=False) == {}
    mapped = compile_config(RunConfig(threads=2, streams=1, precision="bf16"), profile=True)
    assert mapped["INFERENCE_NUM_THREADS"] == 2 and mapped["NUM_STREAMS"] == 1
    assert mapped["PERF_COUNT"] is True and "INFERENCE_PRECISION_HINT" in mapped
