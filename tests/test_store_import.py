"""Import at scale: samples stored as the export carries them, and progress lines."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from perftui.store import progress
from perftui.store.database import Store
from perftui.store.exchange import import_document, write_export
from tests.store_helpers import make_project, make_run


def export_of(tmp_path: Path, runs: int) -> tuple[dict, dict[str, np.ndarray]]:
    store = Store(tmp_path / "source.json")
    store.ensure_project(make_project("p"))
    samples = {}
    for i in range(runs):
        latencies = np.random.default_rng(i).gamma(4.0, 1.0, 500).astype(np.float32)
        samples[store.add_run(make_run("p"), latencies).id] = latencies
    out = io.StringIO()
    write_export(store, out)
    return json.loads(out.getvalue()), samples


def test_imported_samples_are_stored_as_the_export_carries_them(tmp_path: Path) -> None:
    document, samples = export_of(tmp_path, 3)
    target = Store(tmp_path / "target.json")
    assert import_document(target, document) == (1, 3)
    for run_id, latencies in samples.items():
        assert np.array_equal(target.latency_samples(run_id), latencies)
        assert target.figures(run_id) == Store(tmp_path / "source.json").figures(run_id)
    source = tmp_path / "source.json.d" / "samples"
    for path in source.iterdir():  # the same bytes: not inflated and compressed again
        assert (tmp_path / "target.json.d" / "samples" / path.name).read_bytes() == (
            path.read_bytes()
        )


def test_a_long_import_says_how_far_it_has_got(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document, _ = export_of(tmp_path, 4)
    clock = itertools.count(0.0, 10.0)  # every pass takes ten seconds a run
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    lines: list[str] = []
    import_document(Store(tmp_path / "target.json", notify=lines.append), document)
    assert "import: checking: 1 of 4 runs (25%)" in lines
    assert "import: storing: 3 of 4 runs (75%)" in lines
    quiet: list[str] = []
    monkeypatch.undo()
    import_document(Store(tmp_path / "other.json", notify=quiet.append), document)
    assert quiet == []  # a short import says nothing
