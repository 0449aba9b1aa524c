"""NNCF's transformer scheme (SmoothQuant) is chosen by the model's structure: a classifier
with a Softmax and a Gemm is not an attention model."""

from __future__ import annotations

from pathlib import Path

import pytest

from perftui.optimize.nncf_recipe import attention_found
from tests.conftest import ENCODER, MOBILENET
from tests.optimize_models import old_opset_cnn

pytestmark = pytest.mark.engine


def read(path: Path):
    import openvino as ov

    return ov.Core().read_model(str(path))


def test_a_classifier_with_softmax_and_gemm_is_not_a_transformer(tmp_path: Path):
    assert attention_found(read(old_opset_cnn(tmp_path / "old.onnx"))) is None  # Gemm, Softmax
    assert attention_found(read(MOBILENET)) is None


def test_an_encoder_is_found_by_its_matmul_of_two_activations():
    reason = attention_found(read(ENCODER))
    assert reason is not None and reason.startswith("a MatMul of two activations (")
