"""Shared fixtures: sample model paths and an isolated database path for every test."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_models"
MOBILENET = SAMPLES / "mobilenet_fp32.onnx"
MOBILENET_INT8 = SAMPLES / "mobilenet_int8.onnx"
MOBILENET_IR = SAMPLES / "mobilenet_fp32.xml"
ENCODER = SAMPLES / "encoder_fp32.onnx"


@pytest.fixture(autouse=True)
def isolated_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test ever touches the user's real database."""
    path = tmp_path / "perftui-test.json"
    monkeypatch.setenv("PERFTUI_DB", str(path))
    return path


@pytest.fixture
def store(tmp_path: Path):  # -> perftui.store.database.Store, imported only where used
    from perftui.store.database import Store

    return Store(tmp_path / "data" / "perftui.json")


LAYER_PRECISION = {"f32": "FP32", "bf16": "BF16", "f16": "FP16"}
"""OpenVINO's inference precision -> the runtime precision its profile names layers with."""


def openvino_cpu_precision() -> str:
    """The inference precision OpenVINO's CPU plugin runs a float model at on this machine
    by default, as the engine reports it: 'bf16' on CPUs with AVX-512 BF16 or AMX, else
    'f32'. Tests derive what to expect of an unforced run from it."""
    import openvino as ov
    import openvino.properties.hint as hints

    return ov.Core().get_property("CPU", hints.inference_precision()).get_type_name()
