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
