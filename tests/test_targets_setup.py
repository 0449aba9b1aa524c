"""`perftui targets setup` against the loopback sshd (tests/sshd.py).

pip on the "host" installs the wheel built from this checkout with --no-deps --no-index: the
engines and the rest are heavy and this test must not reach a package index, so what it proves
is the wheel, its copy, the venv and the recorded python, not a dependency download.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from perftui.cli import main
from tests.sshd import ALIAS, MISSING, SSHD, Server, sshd

pytestmark = pytest.mark.skipif(SSHD is None, reason=MISSING)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with sshd(tmp_path / "sshd") as running:
        yield running


def test_setup_installs_this_perftui_in_a_venv_there_and_uses_it(
    server: Server, isolated_db: Path, monkeypatch: pytest.MonkeyPatch, capsys
):
    monkeypatch.setenv("PERFTUI_SSH", server.ssh)
    assert main(["targets", "add", "fresh", ALIAS]) == 0
    capsys.readouterr()
    setup = ["targets", "setup", "fresh", "--base-python", sys.executable]
    assert main([*setup, "--pip-args", "--no-deps --no-index"]) == 0
    out = capsys.readouterr().out
    venv = server.config.parent / "remote-cache" / "perftui" / "venv-0.1.0"
    assert f"python {venv}/bin/python" in out and "ready: perftui 0.1.0" in out
    assert main(["targets", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["targets"]
    assert [r["name"] for r in rows] == ["local", "fresh"]  # this machine first
    row = rows[1]
    assert row["python"] == f"{venv}/bin/python" and row["ready"]
