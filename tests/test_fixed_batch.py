"""A batch the model cannot take on the chosen engine is refused before any run."""

import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from perftui.store.database import Store

pytestmark = pytest.mark.engine


@pytest.fixture
def fixed_batch_model(tmp_path: Path) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "fixed", [x], [y])
    path = tmp_path / "fixed.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _bench(model: Path, db: Path, engine: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "perftui", "bench", str(model), "--engine", engine]
    command += ["--batch", "1,4", "--time", "0.1", "--iterations", "2", "--db", str(db)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_onnxruntime_refuses_a_batch_against_a_fixed_dimension(fixed_batch_model, tmp_path):
    db = tmp_path / "db.json"
    done = _bench(fixed_batch_model, db, "onnxruntime")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "fixed dim 0 = 1; batch 4" in lines[0], done.stderr
    assert not db.exists() or Store(db).projects() == []


def test_openvino_reshapes_the_same_model(fixed_batch_model, tmp_path):
    db = tmp_path / "db.json"
    done = _bench(fixed_batch_model, db, "openvino")
    assert done.returncode == 0, done.stderr
    runs = Store(db).runs(Store(db).projects()[0].name)
    assert sorted(run.config.batch for run in runs) == [1, 4]
