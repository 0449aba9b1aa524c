"""Real-model failures the corpus found (benchmarks/corpus.py), each on a tiny model built here:
valid synthetic inputs, named shapes, --data, and FLOPs of transformer graphs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from perftui.bench.data import check_shapes, load_data
from perftui.bench.inputs import make_feeds, resolve_shapes
from perftui.domain.errors import InputError
from perftui.domain.forms.bench import DEFAULTS, build_request
from perftui.domain.model.shapes import parse_shapes
from perftui.domain.records import Project, TensorSpec
from perftui.inspection import inspect_model
from perftui.inspection.input_roles import input_rules
from tests.cli_helpers import bench_json, one_error_line, perftui

HIDDEN = 8
SPECS = [TensorSpec(n, "int64", ("batch", "seq")) for n in ("input_ids", "mask", "token_type")]


def _const(name: str, value: np.ndarray) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value))


def mini_encoder(path: Path) -> Path:
    """BERT's embeddings and one attention score: 50-word and 2-row token-type tables, the
    mask as `(1 - mask) * -1e4`, the sequence length reshaped through Shape arithmetic (which
    plain shape inference cannot follow)."""
    rng = np.random.default_rng(0)
    tables = [
        numpy_helper.from_array(rng.random((50, HIDDEN), dtype=np.float32), "words"),
        numpy_helper.from_array(rng.random((2, HIDDEN), dtype=np.float32), "types"),
        numpy_helper.from_array(rng.random((HIDDEN, HIDDEN), dtype=np.float32), "wq"),
    ]
    nodes = [
        helper.make_node("Gather", ["words", "input_ids"], ["w"]),
        helper.make_node("Cast", ["token_type"], ["tt"], to=TensorProto.INT64),
        helper.make_node("Gather", ["types", "tt"], ["t"]),
        helper.make_node("Add", ["w", "t"], ["e"]),
        helper.make_node("Shape", ["input_ids"], ["s"]),
        _const("i1", np.array([1], np.int64)),
        helper.make_node("Gather", ["s", "i1"], ["seq"], axis=0),
        _const("lead", np.array([-1], np.int64)),
        _const("tail", np.array([HIDDEN], np.int64)),
        helper.make_node("Concat", ["lead", "seq", "tail"], ["shape"], axis=0),
        helper.make_node("Reshape", ["e", "shape"], ["e3"]),
        helper.make_node("MatMul", ["e3", "wq"], ["q"]),
        helper.make_node("Transpose", ["q"], ["qt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "qt"], ["scores"]),
        helper.make_node("Cast", ["mask"], ["m"], to=TensorProto.FLOAT),
        _const("one", np.array(1.0, np.float32)),
        helper.make_node("Sub", ["one", "m"], ["inv"]),
        _const("big", np.array(-1e4, np.float32)),
        helper.make_node("Mul", ["inv", "big"], ["bias"]),
        helper.make_node("Unsqueeze", ["bias", "i1"], ["bias3"]),
        helper.make_node("Add", ["scores", "bias3"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["out"], axis=-1),
    ]
    inputs = [
        helper.make_tensor_value_info(s.name, TensorProto.INT64, ["batch", "seq"]) for s in SPECS
    ]
    output = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq", "seq"])
    graph = helper.make_graph(nodes, "mini", inputs, [output], tables)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


@pytest.fixture
def encoder(tmp_path: Path) -> Path:
    return mini_encoder(tmp_path / "mini.onnx")


def test_rules_come_from_the_graph_and_the_names(encoder: Path):
    rules = input_rules(encoder)
    assert (rules["input_ids"].kind, rules["input_ids"].high) == ("indices", 50)
    assert "words" not in rules and rules["mask"].kind == "ones"
    # "token_type" by name: zeros; the 2-row table it indexes is named in the reason
    assert rules["token_type"].kind == "zeros" and "2 rows" in rules["token_type"].why


def test_the_default_rule_fails_on_onnxruntime_and_the_graph_rule_runs(encoder: Path):
    import onnxruntime as ort

    session = ort.InferenceSession(str(encoder), providers=["CPUExecutionProvider"])
    shapes = resolve_shapes(SPECS, 2, parse_shapes(["seq=12"]))
    with pytest.raises(Exception, match=r"out of data bounds|indices"):
        session.run(None, make_feeds(SPECS, shapes, seed=1))  # ints in [0, 100): too big
    feeds = make_feeds(SPECS, shapes, seed=1, rules=input_rules(encoder))
    assert session.run(None, feeds)[0].shape == (2, 12, 12)
    assert feeds["mask"].min() == 1 and feeds["token_type"].max() == 0


def test_the_cli_runs_the_encoder_on_both_engines_and_records_the_rules(encoder: Path):
    for engine in ("onnxruntime", "openvino"):
        doc = bench_json(str(encoder), "--engine", engine, "--shape", "seq=6,12", "--no-save")
        runs = doc["runs"]
        assert [r["status"] for r in runs] == ["ok", "ok"], [r["error"] for r in runs]
        assert [r["config"]["dims"] for r in runs] == [{"seq": 6}, {"seq": 12}]
        inputs = runs[1]["resolved"]["inputs"]
        assert inputs["input_ids"]["shape"] == [1, 12]
        assert inputs["input_ids"]["values"] == "ints in [0,50)"


def test_named_shapes_bind_every_input_and_expand_the_matrix():
    request = build_request(
        Project("p", "/m.onnx", "onnxruntime"), {**DEFAULTS, "batch": "1,2", "shapes": "seq=64,128"}
    )
    assert [(c.batch, dict(c.dims)) for c in request.configs] == [
        (1, {"seq": 64}),
        (1, {"seq": 128}),
        (2, {"seq": 64}),
        (2, {"seq": 128}),
    ]
    assert request.shapes.text() == "seq=64,128"
    assert resolve_shapes(SPECS, 2, request.shapes, {"seq": 128})["mask"] == (2, 128)
    assert resolve_shapes(SPECS, 1, parse_shapes(["[1,16]"]))["token_type"] == (1, 16)
    assert resolve_shapes(SPECS, 1, parse_shapes(["input_ids[1,4],seq=4"]))["mask"] == (1, 4)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["seq=0"], "'seq' 0 is out of range"),
        (["sq=8"], "names no dimension of the model; its named dimensions: batch, seq"),
        (["batch=4"], "is the batch dimension; give it with --batch"),
        (["input_ids[1,4]", "seq=8"], "disagree"),
    ],
)
def test_bad_named_shapes(flags: list[str], message: str):
    with pytest.raises(InputError, match=message):
        resolve_shapes(SPECS, 1, parse_shapes(flags))


def test_a_name_that_is_an_input_and_a_dimension_or_an_ambiguous_list():
    both = [TensorSpec("seq", "int64", (1, "seq"))]
    with pytest.raises(InputError, match="names both an input and a dimension"):
        resolve_shapes(both, 1, parse_shapes(["seq=4"]))
    ranks = [TensorSpec("a", "float32", ("batch", 3)), TensorSpec("b", "float32", ("batch",))]
    with pytest.raises(InputError, match="ambiguous: the inputs have different ranks"):
        resolve_shapes(ranks, 1, parse_shapes(["[1,3]"]))


def test_flops_follow_shape_arithmetic_and_count_the_cheap_ops(encoder: Path):
    info = inspect_model(encoder, parse_shapes(["seq=16"]))
    matmuls = {n.name or n.op_type: n for n in info.node_flops if n.op_type == "MatMul"}
    assert all(n.known for n in matmuls.values()) and not info.unknown_flops
    assert info.flops == 2 * (16 * HIDDEN * HIDDEN + 16 * HIDDEN * 16)
    assert info.cheap_flops >= 3 * 16 * 16  # the softmax at least


def _save(path: Path, **arrays: np.ndarray) -> Path:
    np.savez(path, **arrays)
    return path


def test_data_is_validated_and_digested(tmp_path: Path):
    ok = {n: np.ones((1, 4), np.int64) for n in ("input_ids", "mask", "token_type")}
    data = load_data(str(_save(tmp_path / "ok.npz", **ok)), SPECS)
    assert len(data.samples) == 1 and len(data.sha256) == 64
    check_shapes(data, {n: (1, 4) for n in ok}, "the run")
    with pytest.raises(InputError, match=r"'input_ids' has shape \[1,4\], run b2 needs \[2,4\]"):
        check_shapes(data, {n: (2, 4) for n in ok}, "run b2")
    bad = {
        "missing": ({k: v for k, v in ok.items() if k != "mask"}, "no array for input 'mask'"),
        "dtype": ({**ok, "mask": np.ones((1, 4), np.float32)}, "dtype float32, the model wants"),
        "nan": ({**ok, "mask": np.array([[1.0, np.nan]])}, "dtype float64"),
        "object": ({**ok, "mask": np.array([{}], dtype=object)}, "pickled object array"),
    }
    for name, (arrays, message) in bad.items():
        with pytest.raises(InputError, match=message):
            load_data(str(_save(tmp_path / f"{name}.npz", **arrays)), SPECS)
    floats = [TensorSpec("x", "float32", (1, 2))]
    with pytest.raises(InputError, match="NaN"):
        load_data(str(_save(tmp_path / "n.npz", x=np.array([[1.0, np.nan]], np.float32))), floats)
    (tmp_path / "text.npy").write_text("not an array")
    with pytest.raises(InputError, match=r"not a NumPy \.npy/\.npz array file"):
        load_data(str(tmp_path / "text.npy"), floats)


def test_the_cli_refuses_bad_data_before_storing_anything(encoder: Path, tmp_path: Path):
    data = _save(tmp_path / "d.npz", input_ids=np.ones((1, 4), np.int64))
    db = tmp_path / "db.json"
    result = perftui("bench", str(encoder), "--shape", "seq=4", "--data", str(data), db=db)
    assert "no array for input 'mask'" in one_error_line(result) and not db.exists()


def test_the_cli_runs_on_data_and_stores_its_digest(encoder: Path, tmp_path: Path):
    arrays = {n: np.zeros((1, 4), np.int64) for n in ("input_ids", "mask", "token_type")}
    data = _save(tmp_path / "d.npz", **arrays)
    doc = bench_json(
        str(encoder),
        "--engine",
        "onnxruntime",
        "--shape",
        "seq=4",
        "--data",
        str(data),
        "--no-save",
    )
    resolved = doc["runs"][0]["resolved"]
    assert resolved["data"]["samples"] == 1 and len(resolved["data"]["sha256"]) == 64
    assert resolved["inputs"]["mask"]["values"] == "--data"
    json.dumps(doc)
