"""`perftui show` reads each run's figures as the store kept them when it was stored: the
figures are the ones its samples give, and no samples file is opened for them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from perftui.domain.measurement.figures import run_figures
from tests.cli_helpers import perftui
from tests.store_helpers import make_run, payload_at, store_with_project


def test_show_gives_the_stored_figures_without_reading_samples(tmp_path: Path) -> None:
    path, store = store_with_project(tmp_path)
    samples = np.random.default_rng(0).gamma(4.0, 1.0, 3000).astype(np.float32)
    run = store.add_run(make_run("p", layers=None), samples)
    expected = run_figures(run, samples).to_dict()
    payload_at(path, run.id).unlink()  # reading it would fail
    for args in (("--json",), ()):
        result = perftui("show", "p", *args, db=path)
        assert result.returncode == 0, result.stderr
    (shown,) = json.loads(perftui("show", "p", "--json", db=path).stdout)["runs"]
    assert {key: shown[key] for key in expected} == json.loads(json.dumps(expected))
    assert shown["latency_ci_ms"]["median"][0] is not None


def test_json_is_compact_when_piped_and_indented_on_a_terminal(tmp_path: Path) -> None:
    import io

    from perftui.cli import common

    path, _ = store_with_project(tmp_path)
    piped = perftui("show", "p", "--json", db=path).stdout  # stdout is a pipe here
    assert piped.count("\n") == 1 and json.loads(piped)["runs"] == []

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = Terminal()
    with_terminal = common.sys.stdout
    try:
        common.sys.stdout = shown
        common.print_json({"a": [1]})
    finally:
        common.sys.stdout = with_terminal
    assert shown.getvalue() == '{\n  "a": [\n    1\n  ]\n}\n'
