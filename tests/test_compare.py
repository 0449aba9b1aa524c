from dataclasses import replace

import pytest

from perftui.domain.compare import (
    Side,
    compare_chart,
    compare_layer_types,
    compare_projects,
    config_lines,
    default_projects,
    default_threshold,
    distribution,
    filter_pairs,
    inference_time,
    join_layers,
    layer_detail,
    normalised_name,
    parse_min_delta,
    run_marks,
    sort_layer_types,
    sort_pairs,
    sweet_spot,
)
from perftui.domain.compare.ranking import candidates
from perftui.domain.errors import InputError
from perftui.domain.measurement.summary import ProjectSummary
from perftui.domain.records import LayerProfile, Project, RunConfig
from tests.factories import flat_latency, run_result


def run(id: str, fps: float, median: float, p99: float | None = None, status: str = "ok"):
    p99 = median * 2 if p99 is None else p99
    stats = flat_latency(median, p90=median * 1.5, p99=p99, high=p99, stdev=0.1, cv=0.1)
    return run_result(
        fps,
        status=status,
        id=id,
        benchmark_id=id,  # each run a configuration of its own
        latency_ms=stats if status == "ok" else None,
    )


def layer(name, type="Convolution", ms=1.0, precision="FP32", status="executed", originals=()):
    return LayerProfile(name, type, f"jit_{precision}", precision, status, ms, tuple(originals))


A_RUNS = candidates(Side.A, [run("a1", 100, 5), run("a2", 300, 12)])
B_RUNS = candidates(Side.B, [run("b1", 250, 4), run("b2", 500, 20, p99=60)])


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
    assert sweet_spot(candidates(Side.A, [run("f", 900, 1, status="failed")]), 100) is None


def test_ties_go_to_lower_latency_then_deterministically():
    tie = candidates(Side.B, [run("x", 200, 9)]) + candidates(Side.A, [run("y", 200, 7)])
    assert sweet_spot(tie, 10).run.id == "y"
    same = candidates(Side.B, [run("p", 200, 7)]) + candidates(Side.A, [run("q", 200, 7)])
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


# --- the compare screen's pure helpers ---------------------------------------------------------


def cfg_run(id, batch, threads, fps, median, started="2025-01-01T00:00:00", layers=None):
    base = run(id, fps, median)
    config = RunConfig(batch=batch, threads=threads)
    return replace(base, config=config, started_at=started, layers=layers)


def summary(fps):
    return ProjectSummary(1 if fps else 0, 1 if fps else 0, fps, 1.0 if fps else None, None)


def test_default_projects_b_has_the_best_throughput_a_its_source():
    fp32 = Project("fp32", "m.onnx", "openvino")
    int8 = Project("int8", "m8.onnx", "openvino", source_project="fp32")
    other = Project("ort", "m.onnx", "onnxruntime")
    assert default_projects(
        [(fp32, summary(200)), (int8, summary(450)), (other, summary(300))]
    ) == (
        "fp32",
        "int8",
    )
    # no source project: the next best measured project
    plain = replace(int8, source_project=None)
    assert default_projects(
        [(fp32, summary(200)), (plain, summary(450)), (other, summary(300))]
    ) == (
        "ort",
        "int8",
    )
    # nothing measured yet: names in order; one project or none
    assert default_projects([(fp32, summary(None)), (other, summary(None))]) == ("ort", "fp32")
    assert default_projects([(fp32, summary(100))]) == (None, "fp32")
    assert default_projects([]) == (None, None)


def test_default_threshold_lets_every_run_qualify():
    runs = [run("a", 100, 3.95), run("b", 50, 10.11), run("f", 0, 1, status="failed")]
    assert default_threshold(runs) == 11
    assert default_threshold(runs[:1]) == pytest.approx(4.0)
    assert default_threshold([run("c", 10, 0.1234)]) == pytest.approx(0.13)
    assert default_threshold(runs, "p99") == pytest.approx(21)  # p99 is twice the median
    assert default_threshold([]) is None
    spot = sweet_spot(candidates(Side.A, runs), default_threshold(runs))
    assert spot is not None and spot.run.id == "a"


@pytest.mark.parametrize("text", ["abc", "-1", "nan", "inf", "1e999"])
def test_min_delta_rejects_what_is_not_a_non_negative_number(text):
    with pytest.raises(InputError, match="delta filter"):
        parse_min_delta(text)


def test_min_delta_accepts_empty_zero_and_numbers():
    assert parse_min_delta("") == 0 and parse_min_delta(" 0 ") == 0
    assert parse_min_delta("0.05") == 0.05


def test_chart_lines_group_runs_by_settings_but_batch():
    runs = [
        cfg_run("a4", 4, 0, 400, 10),
        cfg_run("a1", 1, 0, 200, 5),
        cfg_run("a2t", 2, 2, 300, 7),
        cfg_run("a1b", 1, 0, 210, 5, started="2025-01-02T00:00:00"),
        run("failed", 0, 1, status="failed"),
    ]
    lines = config_lines("A", runs, "median")
    assert [(line.label, [p.run_id for p in line.points]) for line in lines] == [
        ("t2", ["a2t"]),
        ("t:auto", ["a1", "a1b", "a4"]),
    ]
    point = lines[1].points[2]
    assert (point.label, point.latency_ms, point.throughput_fps) == ("b4 t:auto", 10, 400)
    assert config_lines("A", runs, "p99")[1].points[2].latency_ms == 20


def test_chart_marks_the_compared_runs_and_the_sweet_spot():
    a_runs = [cfg_run("a1", 1, 0, 200, 5), cfg_run("a4", 4, 0, 400, 12)]
    b_runs = [cfg_run("b1", 1, 0, 300, 4), cfg_run("b4", 4, 0, 600, 20)]
    c = compare_projects("fp32", a_runs, "int8", b_runs, 6.0)
    chart = compare_chart(c, a_runs, b_runs)
    assert [(m.text, m.run_id, m.sweet) for m in chart.marks] == [
        ("A", "a1", False),
        ("B*", "b1", True),
    ]
    assert len(chart.lines) == 2 and len(chart.points) == 4
    assert run_marks(c) == {("A", "a1"): "A", ("B", "b1"): "B*"}
    # a pinned run is compared, the sweet spot stays where it is and keeps its own mark
    pinned = compare_projects("fp32", a_runs, "int8", b_runs, 6.0, b_pinned="b4")
    assert pinned.b.id == "b4" and pinned.sweet.run.id == "b1"
    assert run_marks(pinned) == {("A", "a1"): "A", ("B", "b4"): "B", ("B", "b1"): "*"}
    # a pin that is not among the runs is ignored; no threshold: no sweet spot
    assert compare_projects("fp32", a_runs, "int8", b_runs, None, a_pinned="zz").a.id == "a4"
    assert compare_chart(compare_projects("x", [], "y", [], None), [], []).marks == ()


def test_inference_time_bars_and_ratio():
    a_runs, b_runs = [cfg_run("a1", 1, 0, 200, 5)], [cfg_run("b1", 1, 0, 300, 4)]
    c = compare_projects("fp32", a_runs, "int8", b_runs, None, "p99")
    tput = inference_time(c)
    assert [(b.side, b.project, b.value) for b in tput.bars] == [
        (Side.A, "fp32", 200),
        (Side.B, "int8", 300),
    ]
    assert tput.ratio == pytest.approx(1.5) and tput.unit == "items/s"
    lat = inference_time(c, "latency")
    assert [b.value for b in lat.bars] == [10, 8] and lat.ratio == pytest.approx(0.8)
    assert lat.unit == "ms (p99)"
    missing = inference_time(compare_projects("fp32", a_runs, "int8", [], None))
    assert missing.bars[1].value is None and missing.ratio is None
    with pytest.raises(ValueError):
        inference_time(c, "power")


def test_layer_detail_shows_what_differs_and_when_a_version_did_not_run_it():
    pairs = {p.name: p for p in join_layers(FP32, INT8)}
    both = layer_detail(pairs["block1/dw/Conv"], "fp32", "int8")
    rows = {r.label: r for r in both.rows}
    assert (rows["precision"].a, rows["precision"].b, rows["precision"].differs) == (
        "FP32",
        "I8",
        True,
    )
    assert rows["type"].differs is False and rows["name"].b == "block1/dw/Conv_quant"
    assert both.notice is None and both.executed_in == "both"
    assert both.matched_by == "normalised name"
    only_b = layer_detail(pairs["input/QuantizeLinear"], "fp32", "int8")
    assert only_b.notice.startswith("Not executed in A (fp32): no layer of A matches")
    assert {r.a for r in only_b.rows} == {""} and not any(r.differs for r in only_b.rows)
    fused = layer_detail(pairs["relu_fused"], "fp32", "int8")
    assert fused.notice.startswith("Not executed in A (fp32): the engine reports it as optimized")
    assert "Not executed in B (int8)" in fused.notice


def test_sort_pairs_reverse():
    pairs = join_layers(FP32, INT8)
    assert sort_pairs(pairs, "delta", reverse=True)[-1].name == "conv1"
    assert sort_pairs(pairs, "name", reverse=True)[0].name == "relu_fused"


def test_sides_are_strings_with_an_other():
    assert Side.A == "A" and f"{Side.B}" == "B" and {Side.A: 1} == {"A": 1}
    assert Side.A.other is Side.B and Side.B.other is Side.A
    c = compare_projects("fp32", [run("a1", 100, 5)], "int8", [], None)
    assert (c.name(Side.A), c.run(Side.A).id, c.name(Side.B), c.run(Side.B)) == (
        "fp32",
        "a1",
        "int8",
        None,
    )
