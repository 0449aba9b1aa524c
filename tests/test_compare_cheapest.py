"""`perftui compare`'s cheapest pick names the runs within noise of it (their cost intervals
overlap), in its text and its JSON."""

from __future__ import annotations

import json
from pathlib import Path

from perftui.domain.records import Project
from perftui.store.database import Store
from tests.cli_helpers import perftui
from tests.test_compare_ranking import at_price, windowed
from tests.tui.compare_data import run


def fill(path: Path, close: bool = True) -> None:
    store = Store(path)
    for name in ("here", "box"):
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
    store.add_run(windowed(at_price(run("here", 1, 1, 0, 300.0), 0.10), 0.01))  # 0.0926/M
    if close:
        store.add_run(windowed(at_price(run("box", 2, 1, 0, 1490.0), 0.50), 0.01))  # 0.0932/M
    store.add_run(windowed(at_price(run("box", 3, 2, 0, 600.0), 0.50), 0.01))  # 0.231/M


def test_the_cheapest_pick_names_the_runs_within_noise_of_it(isolated_db: Path):
    fill(isolated_db)
    text = perftui("compare", "here", "box", "--threshold", "20")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("cheapest per inference"))
    assert "A here" in lines[at] and "0.0926 (0.092" in lines[at] and "per million" in lines[at]
    assert lines[at + 1].startswith("  within noise of it (cost intervals overlap): B box")
    assert "0.0932" in lines[at + 1] and "0.231" not in lines[at + 1]
    done = perftui("compare", "here", "box", "--threshold", "20", "--json")
    cheapest = json.loads(done.stdout)["cheapest"]
    assert cheapest["side"] == "A" and [x["side"] for x in cheapest["within_noise"]] == ["B"]
    assert abs(cheapest["within_noise"][0]["cost_per_million"] - 0.0932) < 0.0001


def test_a_cheapest_pick_apart_from_the_rest_says_so(tmp_path: Path):
    fill(tmp_path / "apart.json", close=False)
    text = perftui("compare", "here", "box", "--threshold", "20", db=tmp_path / "apart.json")
    assert text.returncode == 0, text.stderr
    assert "  no other priced configuration's cost interval overlaps it" in text.stdout.splitlines()
