import pytest

from perftui.domain.compare import (
    Candidate,
    compare_layer_types,
    distribution,
    filter_pairs,
    join_layers,
    normalised_name,
    sort_layer_types,
    sort_pairs,
    sweet_spot,
)
from perftui.domain.records import LatencyStats, LayerProfile, RunConfig, RunResult


def run(id: str, fps: float, median: float, p99: float | None = None, status: str = "ok"):
    p99 = median * 2 if p99 is None else p99
    stats = LatencyStats(median, median, median, median * 1.5, p99, p99, 0.1, 0.1)
    return RunResult(
        config=RunConfig(),
        status=status,
        id=id,
        throughput_fps=fps,
        latency_ms=stats if status == "ok" else None,
    )


def layer(name, type="Convolution", ms=1.0, precision="FP32", status="executed", originals=()):
    return LayerProfile(name, type, f"jit_{precision}", precision, status, ms, tuple(originals))


A_RUNS = [Candidate("A", run("a1", 100, 5)), Candidate("A", run("a2", 300, 12))]
B_RUNS = [Candidate("B", run("b1", 250, 4)), Candidate("B", run("b2", 500, 20, p99=60))]


def test_sweet_spot_is_the_fastest_run_under_the_threshold():
    candidates = A_RUNS + B_RUNS
    assert sweet_spot(candidates, 4.5).run.id == "b1"
    assert sweet_spot(candidates, 12).run.id == "a2"
    spot = sweet_spot(candidates, 20)
    assert (spot.side, spot.run.id, spot.latency_ms) == ("B", "b2", 20)


def test_threshold_is_inclusive_and_statistic_selectable():
    candidates = A_RUNS + B_RUNS
    assert sweet_spot(candidates, 20, stat="p99").run.id == "b1"  # a2's p99 is 24
    assert sweet_spot(candidates, 24, stat="p99").run.id == "a2"  # b2's p99 is 60
    assert sweet_spot(candidates, 60, stat="p99").run.id == "b2"


def test_no_run_qualifies():
    assert sweet_spot(A_RUNS + B_RUNS, 3.9) is None
    assert sweet_spot([], 100) is None
    assert sweet_spot([Candidate("A", run("f", 900, 1, status="failed"))], 100) is None


def test_ties_go_to_lower_latency_then_deterministically():
    tie = [Candidate("B", run("x", 200, 9)), Candidate("A", run("y", 200, 7))]
    assert sweet_spot(tie, 10).run.id == "y"
    same = [Candidate("B", run("p", 200, 7)), Candidate("A", run("q", 200, 7))]
    assert sweet_spot(same, 10).side == "A"
    assert sweet_spot(list(reversed(same)), 10).side == "A"


def test_unknown_statistic():
    with pytest.raises(ValueError, match="p95"):
        sweet_spot(A_RUNS, 10, stat="p95")


FP32 = [
    layer("conv1", ms=3.0),
    layer("block1/dw/Conv", "GroupConvolution", 1.0),
    layer("fc", "FullyConnected", 0.5),
    layer("relu_fused", "Relu", 0.0, status="optimized_out"),
]
INT8 = [
    layer("conv1", ms=1.0, precision="I8"),
    layer("block1/dw/Conv_quant", "GroupConvolution", 0.6, "I8"),
    layer("fc", "FullyConnected", 0.5, "I8"),
    layer("input/QuantizeLinear", "FakeQuantize", 0.2, "U8"),
]


def test_layer_types_side_by_side():
    rows = compare_layer_types(FP32, INT8)
    by_type = {r.type: r for r in rows}
    assert rows[0].type == "Convolution"
    conv = by_type["Convolution"]
    assert conv.a.time_ms == 3.0 and conv.b.time_ms == 1.0 and conv.delta_ms == -2.0
    assert conv.b.precisions == {"I8": 1}
    assert by_type["FakeQuantize"].a is None and by_type["Relu"].b is None
    assert conv.a.share == pytest.approx(3.0 / 4.5)


def test_layer_type_sorting_and_distribution():
    rows = compare_layer_types(FP32, INT8)
    assert sort_layer_types(rows, "type")[0].type == "Convolution"
    assert sort_layer_types(rows, "b_time")[0].type == "Convolution"
    assert sort_layer_types(rows, "delta")[0].type == "Convolution"
    dist = dict((t, (a, b)) for t, a, b in distribution(rows, {"Convolution", "FullyConnected"}))
    assert set(dist) == {"Convolution", "FullyConnected"}
    assert dist["Convolution"][0] == pytest.approx(3.0 / 3.5)
    assert sum(a for a, _ in dist.values()) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        sort_layer_types(rows, "colour")


def test_kernel_join_pairs_by_name_original_and_normalised_name():
    b = [*INT8, layer("fused_relu_conv", ms=0.1, precision="I8", originals=["relu_fused"])]
    pairs = {p.name: p for p in join_layers(FP32, b)}
    assert pairs["conv1"].matched_by == "name"
    assert pairs["conv1"].delta_ms == -2.0 and pairs["conv1"].ratio == pytest.approx(1 / 3)
    assert pairs["block1/dw/Conv"].matched_by == "normalised name"
    assert pairs["block1/dw/Conv"].b.precision == "I8"
    assert pairs["relu_fused"].matched_by == "original name"
    assert pairs["relu_fused"].executed_in == "b"
    only_b = pairs["input/QuantizeLinear"]
    assert only_b.presence == "b_only" and only_b.delta_ms is None and only_b.ratio is None


def test_each_layer_is_used_once_and_all_layers_appear():
    a = [layer("x"), layer("x_quant")]
    b = [layer("x_quant")]
    pairs = join_layers(a, b)
    assert [(p.name, p.presence) for p in pairs] == [("x", "both"), ("x_quant", "a_only")]
    assert len(join_layers(FP32, INT8)) == 5


def test_delta_filter_and_sorting():
    pairs = join_layers(FP32, INT8)
    kept = {p.name for p in filter_pairs(pairs, 0.3)}
    assert "fc" not in kept  # delta 0
    assert {"conv1", "block1/dw/Conv", "relu_fused", "input/QuantizeLinear"} <= kept
    assert sort_pairs(pairs, "delta")[0].name == "conv1"
    assert sort_pairs(pairs, "time_b")[0].name == "conv1"
    assert sort_pairs(pairs, "name")[0].name == "block1/dw/Conv"
    with pytest.raises(ValueError):
        sort_pairs(pairs, "colour")


def test_normalised_names():
    assert normalised_name("block1/dw/Conv_quant") == "block1/dw/Conv"
    assert normalised_name("Conv_3_token_12") == "Conv_3"
    assert normalised_name("conv1") == "conv1"


def test_renamed_fused_layers_pair_by_scope_and_related_type():
    fp32 = [
        layer("Multiply_1", "Convolution", 2.0, originals=["block3/pw/BatchNormalization"]),
        layer("Multiply_2", "GroupConvolution", 1.0, originals=["block3/dw/BatchNormalization"]),
        layer("fc/Gemm", "FullyConnected", 0.5),
        layer("in_reorder", "Reorder", 0.1),
    ]
    int8 = [
        layer(
            "block3/dw/Conv/WithoutBiases",
            "GroupConvolution",
            0.5,
            "I8",
            originals=["block3/dw/Conv"],
        ),
        layer(
            "block3/pw/Conv/WithoutBiases", "Convolution", 1.0, "I8", originals=["block3/pw/Conv"]
        ),
        layer("fc/Gemm/WithoutBiases", "FullyConnectedQuantizedLegacy", 0.2, "I8"),
        layer("block3/pw/Reorder", "Reorder", 0.1, "I8"),
    ]
    pairs = {p.name: p for p in join_layers(fp32, int8)}
    assert pairs["block3/pw"].a.name == "Multiply_1"
    assert pairs["block3/pw"].b.name == "block3/pw/Conv/WithoutBiases"
    assert pairs["block3/pw"].matched_by == "scope"
    assert pairs["block3/dw"].b.type == "GroupConvolution"
    assert pairs["fc/Gemm"].b.name == "fc/Gemm/WithoutBiases"
    assert pairs["in_reorder"].presence == "a_only"
    assert pairs["block3/pw/Reorder"].presence == "b_only"
