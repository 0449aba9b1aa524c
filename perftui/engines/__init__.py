"""Inference engines behind one small interface.

Engine modules import openvino / onnxruntime at module level, so import them only through
`get_engine`, which keeps the dashboard's and the CLI's start-up free of those imports.
"""

from __future__ import annotations

import importlib

from perftui.domain.errors import InputError
from perftui.domain.records import ENGINES
from perftui.engines.base import Engine

_MODULES = {
    "openvino": "perftui.engines.openvino_engine",
    "onnxruntime": "perftui.engines.ort_engine",
}


def get_engine(name: str) -> Engine:
    """The engine called `name`; InputError for an unknown name."""
    if name not in _MODULES:
        raise InputError(f"unknown engine {name!r}; choose one of: {', '.join(ENGINES)}")
    module = importlib.import_module(_MODULES[name])
    return module.ENGINE
