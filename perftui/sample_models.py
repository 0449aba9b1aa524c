"""Where the shipped sample models are, for the dashboard's first start and the docs."""

from __future__ import annotations

from pathlib import Path

SAMPLE_MODELS = (
    "mobilenet_fp32.onnx",
    "mobilenet_int8.onnx",
    "mobilenet_fp32.xml",
    "encoder_fp32.onnx",
)


def sample_models_dir() -> Path | None:
    """The repository's sample_models/ (editable installs), else ./sample_models, else None."""
    repo_copy = Path(__file__).resolve().parent.parent / "sample_models"
    for candidate in (repo_copy, Path.cwd() / "sample_models"):
        if (candidate / SAMPLE_MODELS[0]).is_file():
            return candidate
    return None


def sample_models() -> list[Path]:
    """The sample model files that exist, in SAMPLE_MODELS order."""
    folder = sample_models_dir()
    if folder is None:
        return []
    return [folder / name for name in SAMPLE_MODELS if (folder / name).is_file()]
