"""What an engine takes, as a record the engine hands out (`perftui.engines.capabilities`).

Layers above `engines/` ask these questions of the record, never of an engine's name, so a third
engine (or a GPU execution provider) is one new record, not an edit in every module that decides
what to offer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Capabilities:
    engine: str
    """The engine's name as stored and typed (`--engine openvino`)."""
    title: str
    """How prose names it: "OpenVINO", "ONNX Runtime"."""
    short: str
    """How a narrow column names it: "ov", "ort"."""
    settings: frozenset[str]
    """The benchmark settings (perftui.domain.settings names) this engine honours; a setting
    it does not take stays at its default."""
    precisions: tuple[str, ...]
    """Precisions it can be asked for (`--precision`); () where it runs the model's own."""
    formats: tuple[str, ...]
    """Model formats it reads (perftui.inspection.validate.FORMATS names)."""
    quantizer: str
    """The tool `optimize` quantizes with for this engine ("nncf", "onnxruntime")."""
    quantizer_title: str
    """How prose names that quantizer."""
    onnx_domains: frozenset[str]
    """The ONNX operator domains its ONNX reader knows (its built-in operator sets; "" is
    the default domain)."""
    package: str
    """The Python distribution whose version is the engine's (`environment()` records it under
    the engine's name)."""
    version_label: str
    """How a table of two environments labels the engine's version ("ONNX RT")."""

    def takes(self, setting: str) -> bool:
        """Whether this engine honours the benchmark setting named `setting`."""
        return setting in self.settings

    def reads(self, model_format: str) -> bool:
        return model_format in self.formats
