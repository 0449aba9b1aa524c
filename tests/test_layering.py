"""DESIGN.md rule 3: domain/, engines/ and bench/ never import textual, and start-up stays light."""

import subprocess
import sys

MODULES = [
    "perftui.domain.records",
    "perftui.domain.stats",
    "perftui.domain.options",
    "perftui.domain.summary",
    "perftui.store.database",
    "perftui.store.exchange",
    "perftui.inspection.model",
    "perftui.engines",
    "perftui.bench.client",
    "perftui.bench.worker",
    "perftui.bench.plan",
    "perftui.cli",
]


def loaded_after_import(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_core_layers_never_import_textual():
    for module in MODULES:
        loaded = loaded_after_import(module)
        assert not any(m == "textual" or m.startswith("textual.") for m in loaded), module


def test_engine_libraries_load_only_when_an_engine_is_asked_for():
    for module in MODULES:
        loaded = loaded_after_import(module)
        assert "openvino" not in loaded and "onnxruntime" not in loaded, module
