"""Open-loop traffic on the real engines (the sample MobileNet): their slots serve requests
at a rate, below their capacity the run keeps up, far above it the run says it saturated."""

from __future__ import annotations

import pytest

from perftui.bench.inputs import InputSource, resolve_shapes
from perftui.bench.traffic import TrafficRun
from perftui.domain.records import RunConfig
from perftui.engines import get_engine
from perftui.engines.base import Prepared
from tests.conftest import MOBILENET


def prepared(engine_name: str, config: RunConfig) -> Prepared:
    engine = get_engine(engine_name)
    shapes = resolve_shapes(engine.model_inputs(str(MOBILENET)), config.batch, {})
    model = engine.prepare(str(MOBILENET), "CPU", config, shapes)
    samples = InputSource({}).samples(model.inputs, shapes, 0)
    model.bind(samples[0], samples[1:])
    return model


@pytest.mark.parametrize("engine_name", ["openvino", "onnxruntime"])
def test_below_capacity_it_keeps_up_and_far_above_it_saturates(engine_name: str) -> None:
    run = TrafficRun(prepared(engine_name, RunConfig(threads=1)), arrival="poisson", seed=0)
    calm = run.figures(20.0, 1.5)
    assert calm.completed == calm.requests and not calm.is_saturated, calm.reasons
    assert calm.service_median_ms is not None
    service_s = calm.service_median_ms / 1000.0
    assert calm.latency["median"].value >= calm.service_median_ms * 0.9
    flooded = run.figures(3.0 / service_s, 1.5)  # three times what one slot serves
    assert flooded.is_saturated, flooded.to_dict()
    assert flooded.achieved_rate < 0.6 * flooded.offered_rate


@pytest.mark.parametrize("engine_name", ["openvino", "onnxruntime"])
def test_async_slots_run_at_once(engine_name: str) -> None:
    """Two slots on one compiled model serve requests concurrently without error."""
    config = RunConfig(threads=1, api="async", requests=2, hint="throughput")
    model = prepared(engine_name, config)
    assert len(model.slots(2)) == 2
    figures = TrafficRun(model, arrival="poisson", seed=1).figures(100.0, 1.0)
    assert figures.completed == figures.requests > 50
