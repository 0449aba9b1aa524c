"""Theoretical FLOPs meet the layers an engine ran, fused ones included."""

from pathlib import Path

import numpy as np
import pytest

from perftui.domain.model.model_info import NodeFlops
from perftui.domain.model.profile import flops_profile
from perftui.domain.records import LayerProfile, RunConfig

ENCODER = Path(__file__).resolve().parent.parent / "sample_models" / "encoder_fp32.onnx"


def _layer(name: str, *original: str) -> LayerProfile:
    return LayerProfile(
        name=name,
        type="FullyConnected",
        exec_type="jit_f32",
        precision="FP32",
        status="EXECUTED",
        time_ms=1.0,
        original_names=tuple(original),
    )


def test_a_matmul_fused_into_its_bias_add_meets_the_layer_named_after_the_add():
    nodes = [
        NodeFlops("q/MatMul", "MatMul", 1000, fused_names=("q/Add",)),
        NodeFlops("q/Add", "Add", 10, cheap=True),
        NodeFlops("lonely/MatMul", "MatMul", 50, fused_names=("nowhere/Add",)),
    ]
    rows = {row.name: row for row in flops_profile(nodes, [_layer("q/Add", "q/Add")])}
    assert rows["q/MatMul"].layer == "q/Add" and rows["q/MatMul"].shared_with == 1
    assert rows["lonely/MatMul"].layer is None


def test_a_node_named_by_a_layer_keeps_it_before_any_fused_guess():
    nodes = [NodeFlops("a/MatMul", "MatMul", 10, fused_names=("b",))]
    layers = [_layer("b"), _layer("a/MatMul")]
    assert flops_profile(nodes, layers)[0].layer == "a/MatMul"


@pytest.mark.engine
def test_every_encoder_matmul_has_its_openvino_layer():
    """The issue's case: OpenVINO turns the encoder's MatMul + bias Add into FullyConnected
    layers named after the Add, and 14 of 16 MatMuls showed no layer."""
    from perftui.engines.openvino_engine import ENGINE
    from perftui.inspection import inspect_model

    shapes = {"input_ids": (1, 16)}
    config = RunConfig(batch=1, threads=1, streams=1, requests=1, hint="latency", api="sync")
    prepared = ENGINE.prepare(str(ENCODER), "CPU", config, shapes, profile=True)
    specs = {spec.name: spec for spec in prepared.inputs}
    prepared.bind({name: np.ones(spec.shape, dtype=spec.dtype) for name, spec in specs.items()})
    layers = prepared.layer_profile(2)
    info = inspect_model(str(ENCODER), shapes)
    matmuls = [row for row in flops_profile(info.node_flops, layers) if row.op_type == "MatMul"]
    assert len(matmuls) == 16
    assert [row.name for row in matmuls if row.layer is None] == []
