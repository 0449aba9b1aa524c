"""Inference engines behind one small interface.

Engine modules import openvino / onnxruntime at module level, so import them only through
`get_engine`, which keeps the dashboard's and the CLI's start-up free of those imports. What an
engine can do is asked of `capabilities(name)`, which loads no engine (nor numpy).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from perftui.engines.capabilities import CAPABILITIES, DEFAULT_ENGINE, ENGINES, capabilities

if TYPE_CHECKING:
    from perftui.engines.base import Engine

__all__ = ["CAPABILITIES", "DEFAULT_ENGINE", "ENGINES", "capabilities", "get_engine"]

_MODULES = {
    "openvino": "perftui.engines.openvino_engine",
    "onnxruntime": "perftui.engines.ort_engine",
}


def get_engine(name: str) -> Engine:
    """The engine called `name`; InputError for an unknown name."""
    capabilities(name)  # an unknown name: InputError naming the engines
    module = importlib.import_module(_MODULES[name])
    engine: Engine = module.ENGINE
    return engine
