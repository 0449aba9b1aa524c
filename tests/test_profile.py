"""Layer-type summary, per-layer rows and the FLOPs-vs-time join."""

from __future__ import annotations

import pytest

from perftui.domain.model.model_info import NodeFlops
from perftui.domain.model.profile import (
    flops_profile,
    latest_profiled,
    layer_rows,
    layer_type_summary,
    precision_counts,
    runtime_precision,
    sort_layer_rows,
)
from perftui.domain.records import LayerProfile, RunConfig, RunResult

LAYERS = (
    LayerProfile("conv1", "Convolution", "jit_avx2_I8", "I8", "executed", 4.0, ("conv1/Conv",)),
    LayerProfile("conv2", "Convolution", "jit_avx2_FP32", "FP32", "executed", 2.0),
    LayerProfile("relu", "Eltwise", "jit_avx2_I8", "I8", "executed", 1.0),
    LayerProfile("fq", "FakeQuantize", "undef", "", "not_run", 0.0),
    LayerProfile(
        "fc/Gemm/WithoutBiases/Deq",
        "FullyConnected",
        "gemm_I8",
        "I8",
        "executed",
        3.0,
        ("fc/Gemm/WithoutBiases/Deq", "fc_out"),
    ),
)
NODES = (
    NodeFlops("conv1/Conv", "Conv", 600),
    NodeFlops("conv2", "Conv", 300),
    NodeFlops("fc/Gemm", "Gemm", 100),
    NodeFlops("lonely", "MatMul", 0),
)


def test_layer_type_summary_totals_shares_and_precisions():
    rows = layer_type_summary(LAYERS)
    assert [r.type for r in rows] == ["Convolution", "FullyConnected", "Eltwise", "FakeQuantize"]
    conv = rows[0]
    assert conv.time_ms == 6.0 and conv.share == pytest.approx(0.6) and conv.layers == 2
    assert conv.precisions == {"FP32": 1, "I8": 1}
    fq = rows[-1]
    assert fq.not_run == 1 and fq.precisions == {} and fq.share == 0
    assert sum(r.share for r in rows) == pytest.approx(1.0)
    assert layer_type_summary(()) == []


def test_precision_counts_and_runtime_precision():
    assert precision_counts(LAYERS) == {"FP32": 1, "I8": 3}
    profiled = RunResult(RunConfig(), layers=LAYERS, started_at="2025-01-01T00:00:01+00:00")
    plain = RunResult(
        RunConfig(), resolved={"precision": "bf16"}, started_at="2025-01-01T00:00:02+00:00"
    )
    assert runtime_precision([plain, profiled]) == "I8/FP32"
    assert runtime_precision([plain]) == "bf16"
    assert runtime_precision([RunResult(RunConfig(), resolved={"precision": "model"})]) == "model"
    assert runtime_precision([RunResult(RunConfig(), resolved={})]) == "—"
    assert latest_profiled([plain, profiled]) is profiled
    assert latest_profiled([plain]) is None


def test_layer_rows_join_flops_by_name_original_name_and_prefix():
    rows = {r.name: r for r in layer_rows(LAYERS, NODES)}
    assert rows["conv1"].flops == 600  # through its original name
    assert rows["conv2"].flops == 300  # by its own name
    assert rows["fc/Gemm/WithoutBiases/Deq"].flops == 100  # a kernel named below the node
    assert rows["relu"].flops is None
    assert rows["conv1"].share == pytest.approx(0.4)


def test_layer_rows_sorting():
    rows = layer_rows(LAYERS, NODES)
    assert [r.name for r in rows][:2] == ["conv1", "fc/Gemm/WithoutBiases/Deq"]
    by_type = sort_layer_rows(rows, "type", descending=False)
    assert by_type[0].type == "Convolution"
    by_flops = sort_layer_rows(rows, "flops")
    assert [r.flops for r in by_flops] == [600, 300, 100, None, None]
    with pytest.raises(ValueError):
        sort_layer_rows(rows, "colour")


def test_flops_profile_sets_measured_time_beside_each_node():
    rows = flops_profile(NODES, LAYERS)
    assert [r.name for r in rows] == ["conv1/Conv", "conv2", "fc/Gemm", "lonely"]
    first = rows[0]
    assert first.flops_share == pytest.approx(0.6) and first.layer == "conv1"
    assert first.time_ms == 4.0 and first.time_share == pytest.approx(0.4)
    assert rows[-1].layer is None and rows[-1].time_ms is None
    without = flops_profile(NODES)
    assert all(r.time_ms is None for r in without)


def test_a_layer_that_ran_several_nodes_says_so():
    fused = (LayerProfile("block", "Subgraph", "jit", "FP32", "executed", 5.0, ("a", "b")),)
    rows = flops_profile((NodeFlops("a", "Conv", 10), NodeFlops("b", "MatMul", 30)), fused)
    assert {r.name: r.shared_with for r in rows} == {"a": 1, "b": 1}
    assert (
        layer_rows(fused, (NodeFlops("a", "Conv", 10), NodeFlops("b", "MatMul", 30)))[0].flops == 40
    )


def test_achieved_gflops_of_a_layer():
    from perftui.domain.model.profile import achieved_gflops

    fc = LayerProfile("fc", "FullyConnected", "brgemm_avx2", "FP32", "executed", 2.0, ("q/MatMul",))
    rows = layer_rows([fc], [NodeFlops("q/MatMul", "MatMul", 4_000_000_000)])
    assert rows[0].flops == 4_000_000_000 and rows[0].gflops_per_s == 2000.0
    assert achieved_gflops(None, 1.0) is None and achieved_gflops(10, 0.0) is None
