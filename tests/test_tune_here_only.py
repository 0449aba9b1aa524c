"""A run made on this machine is never stored as another host's: tune refuses a project
measured on a target, in the CLI and the dashboard, before anything is measured."""

from __future__ import annotations

import json
from pathlib import Path

from perftui.domain.records import Project
from perftui.store.database import Store
from tests.cli_helpers import one_error_line, perftui
from tests.conftest import MOBILENET

REMOTE = Project("mn-box", str(MOBILENET), "onnxruntime", "CPU", target="box")


def test_cli_tune_refuses_a_project_on_a_target_and_stores_nothing(isolated_db: Path) -> None:
    Store(isolated_db).add_project(REMOTE)
    result = perftui("tune", "mn-box", "--max-latency", "50", "--trials", "1", db=isolated_db)
    line = one_error_line(result)
    assert "target 'box'" in line and "tune" in line
    shown = perftui("show", "mn-box", "--json", db=isolated_db)
    assert json.loads(shown.stdout)["runs"] == []
