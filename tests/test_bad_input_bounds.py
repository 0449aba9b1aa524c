"""Issue 26: input files and numbers that declare more than any run needs are refused from
their headers and bounds, before anything is read, run or stored (one line, exit 2)."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from perftui.bench.data import load_data
from perftui.domain.errors import InputError
from perftui.domain.records import TensorSpec
from perftui.optimize.calibration_folder import load_calibration_folder
from tests.bad_files import huge_npy, huge_npz, zip_bomb
from tests.cli_helpers import QUICK, one_error_line, perftui
from tests.conftest import MOBILENET

IMAGE = [TensorSpec("input", "float32", ("batch", 3, 224, 224))]
RUN = [("run b1", {"input": (1, 3, 224, 224)})]
BOMB_SHAPE = (1, 2**26)  # 256 MiB of float32 in a 1 MB archive


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return zip_bomb(tmp_path_factory.mktemp("bomb") / "bomb.npz", "input", BOMB_SHAPE)


def _peak_bytes(call) -> int:
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as refused:
            call()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert "[1,67108864]" in str(refused.value) or "shape" in str(refused.value)
    return peak


def test_a_zip_bomb_is_refused_from_its_header_without_decompressing(bomb: Path):
    peak = _peak_bytes(lambda: load_data(str(bomb), IMAGE, RUN))
    assert peak < 16 * 2**20


def test_a_calibration_zip_bomb_is_refused_from_its_header(bomb: Path, tmp_path: Path):
    folder = tmp_path / "calib"
    folder.mkdir()
    (folder / "0.npz").symlink_to(bomb)
    shapes = {"input": (1, 3, 224, 224)}
    peak = _peak_bytes(lambda: load_calibration_folder(folder, IMAGE, shapes))
    assert peak < 16 * 2**20


def test_the_cli_refuses_a_zip_bomb_at_once_and_stores_nothing(bomb: Path, tmp_path: Path):
    db = tmp_path / "db.json"
    started = time.monotonic()
    line = one_error_line(perftui("bench", str(MOBILENET), "--data", str(bomb), *QUICK, db=db))
    assert "has shape [1,67108864]" in line and "needs [1,3,224,224]" in line
    assert time.monotonic() - started < 20 and not db.exists()


@pytest.mark.parametrize("make", [huge_npy, huge_npz])
def test_data_declaring_a_trillion_elements_is_bad_input(make, tmp_path: Path):
    name = "input.npy" if make is huge_npy else "input.npz"
    args = (
        (tmp_path / name, (10**6, 10**6))
        if make is huge_npy
        else (tmp_path / name, "input", (10**6, 10**6))
    )
    path = make(*args)
    db = tmp_path / "db.json"
    line = one_error_line(perftui("bench", str(MOBILENET), "--data", str(path), *QUICK, db=db))
    assert str(path) in line and not db.exists()


def test_data_past_the_budget_is_refused_unread(tmp_path: Path):
    path = huge_npy(tmp_path / "x.npy", (1, 2**20))
    with pytest.raises(InputError, match="cut short"):
        load_data(str(path), [TensorSpec("x", "float32", (1, 2**20))])
    np.save(tmp_path / "y.npy", np.zeros((1, 2**10), np.float32))
    with pytest.raises(InputError, match="MiB"):
        load_data(str(tmp_path / "y.npy"), [TensorSpec("x", "float32", (1, 2**10))], budget=1024)


def test_float64_data_that_float32_cannot_hold_is_refused(tmp_path: Path):
    spec = [TensorSpec("x", "float32", (1, 2))]
    np.save(tmp_path / "exact.npy", np.array([[0.5, 2.0]]))
    assert load_data(str(tmp_path / "exact.npy"), spec).samples[0]["x"].dtype == np.float32
    np.save(tmp_path / "lossy.npy", np.array([[0.1, 2.0]]))
    with pytest.raises(InputError, match="float32 cannot hold exactly"):
        load_data(str(tmp_path / "lossy.npy"), spec)


@pytest.mark.parametrize("command", ["bench", "tune", "optimize"])
@pytest.mark.parametrize("seed", ["-1", str(10**20)])
def test_every_command_refuses_the_same_seeds(command: str, seed: str, tmp_path: Path):
    db = tmp_path / "db.json"
    first = {"bench": [str(MOBILENET), *QUICK], "tune": ["p", "--max-latency", "5"]}
    args = first.get(command, ["p"])
    line = one_error_line(perftui(command, *args, f"--seed={seed}", db=db))
    assert line.endswith(f"--seed: {seed} is not a seed from 0 to 4294967295")
    assert not db.exists()


@pytest.mark.parametrize("samples", ["0", "1000000", str(10**20)])
def test_optimize_refuses_samples_out_of_bounds_before_a_worker_starts(
    samples: str, tmp_path: Path
):
    db = tmp_path / "db.json"
    line = one_error_line(perftui("optimize", "p", "--samples", samples, db=db))
    assert "--samples" in line and "1 to 10,000" in line and not db.exists()


def test_a_batch_past_the_largest_is_refused_by_the_cli_and_the_form(tmp_path: Path):
    from perftui.domain.forms.bench import check_field
    from perftui.domain.limits import MAX_BATCH

    db = tmp_path / "db.json"
    too_big = str(MAX_BATCH + 1)
    line = one_error_line(perftui("bench", str(MOBILENET), "--batch", f"1,{too_big}", db=db))
    assert line.endswith(
        f"--batch: batch {MAX_BATCH + 1:,} is more than anyone means; give at most {MAX_BATCH:,}"
    )
    assert not db.exists()
    assert "at most 1,000,000" in (check_field("batch", f"4,{too_big}") or "")
    assert check_field("batch", str(MAX_BATCH)) is None


def test_the_optimize_form_uses_the_same_bound():
    from perftui.optimize.form import check_field

    assert "1 to 10,000" in (check_field("samples", "1000000") or "")
    assert check_field("samples", "300") is None


@pytest.mark.parametrize("engine", ["openvino", "onnxruntime"])
def test_token_ids_past_the_vocabulary_are_refused_before_any_run(engine: str, tmp_path: Path):
    """Issue 24 item 9: ids of 60 for a 50-word table ran "ok" on OpenVINO."""
    from tests.test_real_inputs import mini_encoder

    model = mini_encoder(tmp_path / "mini.onnx")
    ids = np.array([[1, 2, 60, 3]], np.int64)
    arrays = {"input_ids": ids, "mask": np.ones((1, 4), np.int64)}
    np.savez(tmp_path / "d.npz", **arrays, token_type=np.zeros((1, 4), np.int64))
    db = tmp_path / "db.json"
    result = perftui(
        "bench", str(model), "--engine", engine, "--shape", "seq=4",
        "--data", str(tmp_path / "d.npz"), *QUICK, db=db,
    )  # fmt: skip
    line = one_error_line(result)
    assert "input 'input_ids' holds 60" in line and "below 50" in line and not db.exists()
