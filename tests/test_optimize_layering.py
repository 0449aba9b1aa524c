"""The optimize package keeps ARCHITECTURE.md rule 3 and a light `perftui` start-up."""

from __future__ import annotations

import subprocess
import sys


def loaded_after_import(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_the_command_module_loads_no_numpy_onnx_or_engine():
    loaded = loaded_after_import("perftui.cli.optimize")
    heavy = {"numpy", "onnx", "onnxruntime", "openvino", "textual"}
    assert not heavy & loaded


def test_the_work_modules_never_import_textual_or_an_engine_at_import():
    for module in ("calibration", "quantize", "accuracy", "project"):
        loaded = loaded_after_import(f"perftui.optimize.{module}")
        assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}, module
        assert "onnxruntime" not in loaded and "openvino" not in loaded, module
