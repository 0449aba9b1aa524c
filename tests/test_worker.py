"""The worker's run loop with a stand-in engine (no engine library, no child process)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import numpy as np

from perftui.bench import protocol
from perftui.bench.worker import Cancellation, measure_run
from perftui.domain.records import (
    BenchmarkRequest,
    Budget,
    LayerProfile,
    Project,
    RunConfig,
    TensorSpec,
)
from perftui.engines.base import Engine, Prepared, Recorder
from perftui.engines.capabilities import ONNXRUNTIME

INPUT = TensorSpec("x", "float32", (1, 4))


class FakePrepared(Prepared):
    def __init__(self, cancel: Cancellation, cancel_in_profile: bool) -> None:
        super().__init__(inputs=[INPUT], read_ms=1.0, compile_ms=2.0)
        self._cancel = cancel
        self._cancel_in_profile = cancel_in_profile

    def bind(self, feeds: Mapping[str, np.ndarray], others: object = ()) -> None:
        pass

    def infer_once(self) -> float:
        return 0.001

    def run_async(self, recorder: Recorder) -> None:
        self.run_sync(recorder)

    def slots(self, n: int) -> list[Callable[[], object]]:
        return [self.infer_once] * n

    def layer_profile(self, iterations: int) -> list[LayerProfile]:
        if self._cancel_in_profile:
            self._cancel()  # SIGTERM while the (uninterruptible) profile pass runs
        return [LayerProfile("conv", "Convolution", "jit_f32", "FP32", "executed", 0.9)]


class FakeEngine(Engine):
    capabilities = replace(ONNXRUNTIME, engine="fake", title="Fake")

    def __init__(self, cancel: Cancellation, cancel_in_profile: bool = False) -> None:
        self._cancel = cancel
        self._cancel_in_profile = cancel_in_profile

    def version(self) -> str:
        return "0"

    def devices(self) -> list[str]:
        return ["CPU"]

    def check_config(self, config: RunConfig) -> None:
        return None

    def model_inputs(self, model_path: str) -> list[TensorSpec]:
        return [INPUT]

    def prepare(self, model_path, device, config, shapes, *, profile=False) -> Prepared:
        return FakePrepared(self._cancel, self._cancel_in_profile and profile)

    def load_outputs(self, model_path, device, shapes, exact):
        raise AssertionError("a benchmark never loads a model for its outputs")


def _request(profile: bool) -> BenchmarkRequest:
    return BenchmarkRequest(
        Project("p", "m.onnx", "fake"),
        (RunConfig(),),
        Budget(time_s=0.0, iterations=20, warmup=1, profile_iterations=3),
        profile=profile,
    )


def test_a_cancel_during_the_profile_pass_keeps_a_complete_run_ok():
    cancel = Cancellation()
    engine = FakeEngine(cancel, cancel_in_profile=True)
    finished = measure_run(engine, _request(True), 0, RunConfig(), lambda e: None, cancel)
    assert cancel.requested  # the worker stops after this run...
    run = finished.run  # ...but the timed window met its stop condition: not "cancelled"
    assert run.status == "ok" and run.error is None and run.iterations == 20
    assert run.layers is not None and run.layers[0].name == "conv"


def test_a_run_cancelled_before_it_began_is_not_compiled():
    cancel = Cancellation()
    cancel()
    events: list[protocol.Event] = []

    class Untouchable(FakeEngine):
        def model_inputs(self, model_path: str) -> list[TensorSpec]:
            raise AssertionError("no model read for a cancelled run")

    finished = measure_run(
        Untouchable(cancel), _request(False), 0, RunConfig(), events.append, cancel
    )
    assert finished.run.status == "cancelled" and events == []
