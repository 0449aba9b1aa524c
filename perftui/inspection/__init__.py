"""Model inspection: file checks (`validate`), the ONNX and OpenVINO IR readers, FLOPs counting
and their conventions. What it finds is `perftui.domain.model.model_info.ModelInfo`."""

from perftui.inspection.model import inspect_model
from perftui.inspection.validate import model_format, validate_model_file

__all__ = ["inspect_model", "model_format", "validate_model_file"]
