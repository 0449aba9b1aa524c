"""Tune from the dashboard refuses a project measured on a target (tests/test_tune_here_only.py
has the CLI's refusal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perftui.store.database import Store
from perftui.tui.app import create_app
from tests.test_tune_here_only import REMOTE
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


async def test_dashboard_tune_of_a_project_on_a_target_says_why(tmp_path: Path, services) -> None:
    db = tmp_path / "db.json"
    Store(db).add_project(REMOTE)
    app = create_app(db, services)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        app.tune_project("mn-box")
        await wait_for(pilot, lambda: bool(app._notifications))
        message = " ".join(n.message for n in app._notifications)
        assert "target 'box'" in message
        assert type(app.screen).__name__ == "ProjectsScreen"
