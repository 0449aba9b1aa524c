"""Export passes once over the database, one run at a time, and gives every run's samples and
layers as stored."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.exchange.documents import write_export
from perftui.store import codec
from perftui.store.database import Store
from tests.store_helpers import make_project, make_run, payload_at


def filled(path: Path) -> tuple[Store, dict[str, np.ndarray]]:
    store = Store(path)
    samples = {}
    for name in ("a", "b"):
        store.ensure_project(make_project(name, f"/m/{name}"))
        for n in range(3):
            values = np.random.default_rng(n).gamma(4.0, 1.0, 500).astype(np.float32)
            samples[store.add_run(make_run(name), values).id] = values
    return Store(path), samples


def test_export_gives_every_run_with_its_samples_and_layers(tmp_path: Path) -> None:
    store, samples = filled(tmp_path / "perftui.json")
    out = io.StringIO()
    write_export(store, out)
    runs = [r for p in json.loads(out.getvalue())["projects"] for r in p["runs"]]
    assert len(runs) == 6 and all(r["layers"] for r in runs)
    stored = {r.id: r for name in ("a", "b") for r in Store(store.path).runs(name)}
    for run in runs:  # the stored rows, as the records would give them
        expected = json.loads(json.dumps(stored[run["id"]].to_dict()))
        assert {k: run[k] for k in expected} == expected
    for run in runs:
        got = codec.samples_from_document(run["latency_samples"])
        assert np.array_equal(got, samples[run["id"]])


def test_export_refuses_a_samples_file_that_does_not_hold_its_count(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    _, samples = filled(path)
    victim = next(iter(samples))
    np.savez(payload_at(path, victim), samples=np.ones(3, np.float32))
    with pytest.raises(StoreError, match=f"{victim}.npz of project 'a' cannot be read"):
        write_export(Store(path), io.StringIO())


def test_a_runs_samples_are_read_from_its_file_in_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exporting reads each run's payload once (it read the file twice: 0.1's issue 39)."""
    from perftui.store import runs
    from tests.store_helpers import make_project, make_run

    path = tmp_path / "perftui.json"
    store = Store(path)
    store.ensure_project(make_project("p"))
    samples = np.arange(100, dtype=np.float32)
    store.add_run(make_run("p"), samples)
    (run,) = Store(path).runs("p")
    reads: list[Path] = []
    real = runs.read_nofollow
    monkeypatch.setattr(runs, "read_nofollow", lambda p: reads.append(p) or real(p))
    assert np.array_equal(Store(path).latency_samples(run.id), samples)
    assert len(reads) == 1
