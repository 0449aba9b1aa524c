"""Calibration folders and seeded samples for `perftui optimize` (pure numpy, no engine)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import TensorSpec
from perftui.optimize.calibration import (
    calibration_shapes,
    held_back_samples,
    random_calibration,
)
from perftui.optimize.calibration_folder import load_calibration_folder, safe_name

IMAGE = TensorSpec("input", "float32", ("batch", 3, 8, 8))
TOKENS = TensorSpec("input_ids", "int64", ("batch", "seq"))
MASK = TensorSpec("attention/mask:0", "bool", ("batch", "seq"))
SHAPES = {"input": (1, 3, 8, 8)}
TEXT_SHAPES = {"input_ids": (1, 4), "attention/mask:0": (1, 4)}


def image(value: float = 0.5, shape: tuple[int, ...] = (1, 3, 8, 8)) -> np.ndarray:
    return np.full(shape, value, dtype=np.float32)


def load(folder: Path, limit: int | None = None):
    return load_calibration_folder(folder, [IMAGE], SHAPES, limit)


# --------------------------------------------------------------------------- layouts
def test_one_npy_per_sample_in_natural_order_with_or_without_batch(tmp_path: Path):
    np.save(tmp_path / "s10.npy", image(10))
    np.save(tmp_path / "s2.npy", image(2, (3, 8, 8)))  # no batch dimension
    np.save(tmp_path / "s1.npy", image(1).astype(np.float64))  # converted to float32
    (tmp_path / ".DS_Store").write_text("hidden files are ignored")
    data = load(tmp_path)
    assert data.source == "folder" and data.folder == tmp_path and data.available == 3
    assert [s["input"][0, 0, 0, 0] for s in data.samples] == [1, 2, 10]
    for sample in data.samples:
        assert sample["input"].shape == (1, 3, 8, 8) and sample["input"].dtype == np.float32


def test_a_batch_in_one_file_is_split_and_samples_take_the_first_n(tmp_path: Path):
    np.save(tmp_path / "a.npy", np.stack([image(i, (3, 8, 8)) for i in range(5)]))
    np.save(tmp_path / "b.npy", image(9))
    data = load(tmp_path, limit=4)
    assert data.available == 6 and len(data.samples) == 4
    assert [s["input"][0, 0, 0, 0] for s in data.samples] == [0, 1, 2, 3]
    assert all(s["input"].shape == (1, 3, 8, 8) for s in data.samples)


def test_npz_and_sample_folders_for_multi_input_models(tmp_path: Path):
    ids = np.arange(4, dtype=np.int32).reshape(1, 4)  # int32 -> the model's int64
    np.savez(tmp_path / "0.npz", input_ids=ids, **{"attention/mask:0": np.ones((1, 4), bool)})
    sample = tmp_path / "1"
    sample.mkdir()
    np.save(sample / "input_ids.npy", np.arange(4)[None])
    np.save(sample / f"{safe_name(MASK.name)}.npy", np.array([[1, 1, 0, 0]]))  # 0/1 -> bool
    data = load_calibration_folder(tmp_path, [TOKENS, MASK], TEXT_SHAPES)
    assert len(data.samples) == 2
    for s in data.samples:
        assert s["input_ids"].dtype == np.int64 and s["attention/mask:0"].dtype == np.bool_
    assert data.samples[1]["attention/mask:0"].tolist() == [[True, True, False, False]]
    assert safe_name("attention/mask:0") == "attention_mask_0"


def test_a_fixed_batch_other_than_one_must_be_given_whole(tmp_path: Path):
    spec = TensorSpec("input", "float32", (2, 3))
    np.save(tmp_path / "a.npy", np.zeros(3, np.float32))
    with pytest.raises(InputError, match=r"shape \[3\], but input 'input' needs \[2,3\]$"):
        load_calibration_folder(tmp_path, [spec], {"input": (2, 3)})
    np.save(tmp_path / "a.npy", np.zeros((2, 3), np.float32))
    data = load_calibration_folder(tmp_path, [spec], {"input": (2, 3)})
    assert [s["input"].shape for s in data.samples] == [(2, 3)]


def test_fixed_first_dimension_is_kept_and_dynamic_dims_need_a_shape():
    fixed = TensorSpec("x", "float32", (3, "n"))
    assert calibration_shapes([fixed], {"x": (7, 5)}) == {"x": (3, 5)}
    assert calibration_shapes([IMAGE], {}) == {"input": (1, 3, 8, 8)}
    with pytest.raises(InputError, match=r"--shape input_ids\["):
        calibration_shapes([TOKENS], {})


def test_random_calibration_and_held_back_sets_are_seeded_and_disjoint():
    calib = random_calibration([IMAGE], SHAPES, 3, seed=7)
    again = random_calibration([IMAGE], SHAPES, 3, seed=7)
    held = held_back_samples([IMAGE], SHAPES, 3, seed=7)
    assert calib.source == "random" and len(calib.samples) == 3 and calib.folder is None
    for a, b in zip(calib.samples, again.samples, strict=True):
        assert np.array_equal(a["input"], b["input"])
    assert not np.array_equal(calib.samples[0]["input"], calib.samples[1]["input"])
    for c in calib.samples:
        assert not any(np.array_equal(c["input"], h["input"]) for h in held)
    assert held[0]["input"].shape == (1, 3, 8, 8) and held[0]["input"].dtype == np.float32


# --------------------------------------------------------------------------- bad folders
def test_missing_folder_file_instead_of_folder_and_empty_folder(tmp_path: Path):
    with pytest.raises(InputError, match="calibration folder not found"):
        load(tmp_path / "nope")
    (tmp_path / "one.npy").write_bytes(b"")
    with pytest.raises(InputError, match="needs a folder"):
        load(tmp_path / "one.npy")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".hidden").write_text("")
    with pytest.raises(InputError, match=r"is empty; put one \.npy per sample"):
        load(empty)


@pytest.mark.parametrize(
    ("name", "write", "message"),
    [
        ("notes.txt", lambda p: p.write_text("hello"), r"'notes\.txt', which is not a \.npy"),
        ("text.npy", lambda p: p.write_text("1,2,3"), r"not a \.npy array \(no NumPy header\)"),
        ("cut.npy", lambda p: p.write_bytes(b"\x93NUMPY\x01\x00v"), "cannot read calibration"),
        ("words.npy", lambda p: np.save(p, np.array(["a", "b"])), r"<U1 data, not numbers"),
        ("objects.npy", lambda p: np.save(p, np.array([{}], object)), "cannot read"),
        ("complex.npy", lambda p: np.save(p, image().astype(complex)), "not numbers"),
        ("nan.npy", lambda p: np.save(p, image(np.nan)), "NaN or infinity"),
        ("small.npy", lambda p: np.save(p, image(shape=(1, 3, 4, 4))), r"shape \[1,3,4,4\]"),
        ("empty.npy", lambda p: np.save(p, image(shape=(0, 3, 8, 8))), r"shape \[0,3,8,8\]"),
        ("archive.npy", lambda p: p.write_bytes(b"PK\x03\x04zip"), r"is an \.npz archive"),
    ],
)
def test_bad_files_name_the_file_and_the_problem(tmp_path: Path, name, write, message):
    np.save(tmp_path / "0-good.npy", image())
    write(tmp_path / name)
    with pytest.raises(InputError, match=message) as info:
        load(tmp_path)
    assert "\n" not in str(info.value)


def test_wrong_shape_message_says_what_fits(tmp_path: Path):
    np.save(tmp_path / "a.npy", image(shape=(1, 3, 32, 32)))
    with pytest.raises(InputError) as info:
        load(tmp_path)
    assert str(info.value) == (
        f"calibration file {tmp_path.name}/a.npy has shape [1,3,32,32], but input 'input'"
        " needs [1,3,8,8], or [3,8,8] without the batch dimension, or [N,3,8,8] for N samples"
    )


def test_bad_files_are_found_even_past_the_samples_limit(tmp_path: Path):
    np.save(tmp_path / "a.npy", image())
    np.save(tmp_path / "b.npy", image(shape=(2, 2)))
    with pytest.raises(InputError, match=r"b\.npy has shape"):
        load(tmp_path, limit=1)


def test_integer_inputs_refuse_floats_and_values_out_of_range(tmp_path: Path):
    spec = TensorSpec("ids", "int8", ("batch", 4))
    np.save(tmp_path / "a.npy", np.zeros((1, 4), np.float32))
    with pytest.raises(InputError, match="takes int8 \\(save integer data\\)"):
        load_calibration_folder(tmp_path, [spec], {"ids": (1, 4)})
    np.save(tmp_path / "a.npy", np.array([[0, 1, 2, 300]]))
    with pytest.raises(InputError, match=r"values 0\.\.300, outside the range"):
        load_calibration_folder(tmp_path, [spec], {"ids": (1, 4)})
    np.save(tmp_path / "a.npy", np.array([[0, 1, 2, 2]]))
    bool_spec = TensorSpec("ids", "bool", ("batch", 4))
    with pytest.raises(InputError, match="takes booleans"):
        load_calibration_folder(tmp_path, [bool_spec], {"ids": (1, 4)})


def test_multi_input_layout_errors(tmp_path: Path):
    specs, shapes = [TOKENS, MASK], TEXT_SHAPES
    np.save(tmp_path / "a.npy", np.zeros((1, 4), np.int64))
    with pytest.raises(InputError, match=r"model has 2 inputs \(input_ids, attention/mask:0\)"):
        load_calibration_folder(tmp_path, specs, shapes)
    (tmp_path / "a.npy").unlink()
    np.savez(tmp_path / "a.npz", input_ids=np.zeros((1, 4), np.int64))
    with pytest.raises(InputError, match="no array for input 'attention/mask:0'"):
        load_calibration_folder(tmp_path, specs, shapes)
    np.savez(
        tmp_path / "a.npz",
        input_ids=np.zeros((1, 4), np.int64),
        attention_mask_0=np.ones((1, 4), bool),
        labels=np.zeros(1),
    )
    with pytest.raises(InputError, match="array 'labels', which is not a model input"):
        load_calibration_folder(tmp_path, specs, shapes)
    (tmp_path / "a.npz").unlink()
    sample = tmp_path / "s"
    sample.mkdir()
    np.save(sample / "input_ids.npy", np.zeros((2, 4), np.int64))
    np.save(sample / "attention_mask_0.npy", np.ones((3, 4), bool))
    with pytest.raises(InputError, match="different batch sizes"):
        load_calibration_folder(tmp_path, specs, shapes)
    (sample / "readme.md").write_text("x")
    with pytest.raises(InputError, match=r"'readme\.md', which is not a \.npy file"):
        load_calibration_folder(tmp_path, specs, shapes)
