"""What an engine can do is asked of its capabilities: each engine hands out the record of its
name, the record is readable without loading an engine (nor numpy), and the checks that used to
compare engine names now read the record (the ONNX operator domains an engine knows)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from perftui.domain.compare.environments import environment_rows
from perftui.domain.errors import InputError
from perftui.domain.records import RunConfig
from perftui.domain.regression.history import environment_changes
from perftui.engines import CAPABILITIES, ENGINES, capabilities, get_engine
from perftui.engines.base import check_not_taken
from perftui.engines.capabilities import ONNXRUNTIME, OPENVINO
from perftui.inspection.validate import check_onnx_graph
from tests.test_layering import loaded_after_import


@pytest.mark.parametrize("name", ENGINES)
def test_each_engine_hands_out_the_capabilities_of_its_name(name: str):
    engine = get_engine(name)
    assert engine.capabilities is capabilities(name)
    assert engine.name == name


def test_an_unknown_engine_is_one_line_naming_the_engines():
    with pytest.raises(InputError, match="unknown engine 'tensorrt'; choose one of: openvino"):
        capabilities("tensorrt")
    with pytest.raises(InputError, match="unknown engine 'tensorrt'"):
        get_engine("tensorrt")


def test_capabilities_load_no_engine_and_no_numpy():
    loaded = loaded_after_import("perftui.engines.capabilities")
    assert not loaded & {"numpy", "onnx", "onnxruntime", "openvino", "textual"}


def _model_of_domain(tmp_path: Path, domain: str) -> Path:
    node = helper.make_node("Relu", ["x"], ["y"], name="act", domain=domain)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(domain, 1)]
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=opsets), str(path))
    return path


def test_the_operator_domains_checked_are_the_engines_own(tmp_path: Path):
    path = _model_of_domain(tmp_path, "org.openvinotoolkit")
    check_onnx_graph(path, OPENVINO)  # OpenVINO's own extension domain
    unknown = r"'org\.openvinotoolkit', which onnxruntime does not know"
    with pytest.raises(InputError, match=unknown):
        check_onnx_graph(path, ONNXRUNTIME)
    check_onnx_graph(path, ONNXRUNTIME, domains=False)  # only the tensors' data checked


def test_a_model_format_is_read_by_the_engines_that_say_so():
    assert OPENVINO.reads("openvino-ir") and OPENVINO.reads("onnx")
    assert ONNXRUNTIME.reads("onnx") and not ONNXRUNTIME.reads("openvino-ir")


@pytest.mark.parametrize("name", ENGINES)
def test_each_engine_s_version_has_its_row_and_a_history_watches_it(name: str):
    engine = capabilities(name)
    before, after = {name: "1.0", "cpu_model": "x"}, {name: "2.0", "cpu_model": "x"}
    [row] = [row for row in environment_rows(before, after) if row.label == engine.version_label]
    assert (row.a, row.b) == ("1.0", "2.0")
    assert environment_changes(before, after, engine) == (f"{engine.version_label} 1.0 -> 2.0",)
    others = [c for c in CAPABILITIES.values() if c is not engine]
    assert all(environment_changes(before, after, other) == () for other in others)


def test_a_setting_an_engine_does_not_take_must_ask_nothing_of_it():
    check_not_taken(ONNXRUNTIME, RunConfig(streams=1, precision="f32"))  # neutral values
    with pytest.raises(InputError, match=r"^ONNX Runtime has no streams; use --streams auto$"):
        check_not_taken(ONNXRUNTIME, RunConfig(streams=2))
    with pytest.raises(InputError, match="--precision bf16 needs the openvino engine"):
        check_not_taken(ONNXRUNTIME, RunConfig(precision="bf16"))
    check_not_taken(OPENVINO, RunConfig(streams=4, precision="bf16"))
    streamless = replace(OPENVINO, title="Streamless", settings=OPENVINO.settings - {"streams"})
    with pytest.raises(InputError, match=r"^Streamless has no streams"):
        check_not_taken(streamless, RunConfig(streams=2))
