"""Where the database lives and how a project's model path is stored and compared."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from perftui.domain.records import Project

__all__ = ["default_db_path", "normalize_model_path", "same_target"]


def default_db_path() -> Path:
    """``$PERFTUI_DB`` if set, else ``<user data dir>/perftui/perftui.json``."""
    env = os.environ.get("PERFTUI_DB")
    if env:
        return Path(env).expanduser()
    return platformdirs.user_data_path("perftui") / "perftui.json"


def normalize_model_path(model: str) -> str:
    """How a project's model path is stored and compared: absolute, ~ expanded."""
    return os.path.abspath(os.path.expanduser(model)) if model else model


def same_target(a: Project, b: Project) -> bool:
    """Whether two projects measure the same model with the same engine on the same device
    of the same target."""
    return (
        normalize_model_path(a.model) == normalize_model_path(b.model)
        and a.engine == b.engine
        and a.device.upper() == b.device.upper()
        and a.target == b.target
    )
