"""Import at scale: every sample and figure as the export carries them, progress lines, and
all or nothing."""

from __future__ import annotations

import io
import itertools
import json
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import Project
from perftui.exchange import progress
from perftui.exchange.documents import import_document, write_export
from perftui.store.database import Store
from perftui.store.runs import Prepared, prepare, with_id
from tests.store_helpers import entry, make_project, make_run, tree


def export_of(tmp_path: Path, runs: int) -> tuple[dict, dict[str, np.ndarray]]:
    store = Store(tmp_path / "source.json")
    store.ensure_project(make_project("p"))
    samples = {}
    made = [
        (make_run("p"), np.random.default_rng(i).gamma(4.0, 1.0, 500).astype(np.float32))
        for i in range(runs)
    ]
    for run, (_, latencies) in zip(store.add_runs(made), made, strict=True):
        samples[run.id] = latencies
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


def test_a_long_import_says_how_far_it_has_got(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document, _ = export_of(tmp_path, 4)
    clock = itertools.count(0.0, 10.0)  # every pass takes ten seconds a run
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    lines: list[str] = []
    import_document(Store(tmp_path / "target.json", notify=lines.append), document)
    assert "import [#####...............] 1 of 4 runs (25%)" in lines
    assert "import [###############.....] 3 of 4 runs (75%)" in lines
    quiet: list[str] = []
    monkeypatch.undo()
    import_document(Store(tmp_path / "other.json", notify=quiet.append), document)
    assert quiet == []  # a short import says nothing


@pytest.mark.parametrize("runs", [3, 70])  # payloads written at the commit, or as it goes
def test_an_import_refused_at_its_last_run_stores_nothing(tmp_path: Path, runs: int) -> None:
    document, _ = export_of(tmp_path, runs)
    document["projects"][0]["runs"][-1]["latency_samples"]["count"] += 1
    target = Store(tmp_path / "target.json")
    target.ensure_project(make_project("other", "/m/other"))
    before = tree(tmp_path / "target.json.projects"), (tmp_path / "target.json").read_bytes()
    with pytest.raises(InputError, match=r"runs\[\d+\]\.latency_samples: samples count"):
        import_document(target, document)
    assert (
        tree(tmp_path / "target.json.projects"),
        (tmp_path / "target.json").read_bytes(),
    ) == before
    assert Store(tmp_path / "target.json").runs("p") == []


def test_importing_the_same_large_export_twice_adds_nothing_and_leaves_no_mark(
    tmp_path: Path,
) -> None:
    document, _ = export_of(tmp_path, 70)
    target = Store(tmp_path / "target.json")
    assert import_document(target, document) == (1, 70)
    before = tree(tmp_path / "target.json.projects"), (tmp_path / "target.json").read_bytes()
    assert import_document(target, json.loads(json.dumps(document))) == (0, 0)
    assert (
        tree(tmp_path / "target.json.projects"),
        (tmp_path / "target.json").read_bytes(),
    ) == before


def figures_files(path: Path) -> dict[str, dict]:
    """Each project's figures, as the write left them in the index."""
    return {name: entry(path, name)["figures"] for name in ("p", "q", "r")}


def test_figures_an_import_computes_as_each_project_ends_are_those_of_its_runs(
    tmp_path: Path,
) -> None:
    """A project's figures are those of its runs however they came, with its profiled run's
    layers; a run of it that comes later still counts, and its empty profile, the newest,
    names the precision. Both databases get the same runs: one in a
    merge, where p's third run comes after q began, the other a write per project."""

    def run(project: str, n: int, **kw: object) -> Prepared:
        made = make_run(project, started_at=f"2026-01-0{n}T00:00:00+00:00", **kw)
        return prepare(with_id(made), np.full(20, float(n), np.float32))

    p1, p2 = run("p", 1), run("p", 2, throughput_fps=900.0, layers=None)
    q1, p3, r1 = run("q", 3), run("p", 4, benchmark_id="later", layers=()), run("r", 5)
    merged = Store(tmp_path / "merged.json")
    p, q, r = make_project("p"), make_project("q", "/m/q"), make_project("r", "/m/r")
    assert merged.merge([p, p1, p2, q, q1, p3, r, r1]) == (3, 5)
    one_by_one = Store(tmp_path / "one.json")
    for records in ([p, p1, p2, p3], [q, q1], [r, r1]):
        one_by_one.merge(records)
    assert figures_files(merged.path) == figures_files(one_by_one.path)
    assert figures_files(merged.path)["p"]["summary"]["runs"] == 3
    assert merged.precisions() == one_by_one.precisions() != {}


def test_an_import_of_more_projects_than_open_files_allowed(tmp_path: Path) -> None:
    """An import of 200 projects under a limit of 128 open files: no file stays open."""
    source = Store(tmp_path / "source.json")
    records: list[Project | Prepared] = []
    for i in range(200):
        records.append(make_project(f"p{i:03d}", f"/m/{i}"))
        records.append(prepare(with_id(make_run(f"p{i:03d}")), np.full(20, i, np.float32)))
    source.merge(records)
    export = tmp_path / "export.json"
    with export.open("w") as out:
        write_export(source, out)

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    result = subprocess.run(
        [sys.executable, "-m", "perftui", "--db", str(tmp_path / "t.json"), "import", str(export)],
        capture_output=True,
        text=True,
        preexec_fn=few_files,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    target = Store(tmp_path / "t.json")
    assert len(target.projects()) == 200
    for i in (0, 99, 199):
        (run,) = target.runs(f"p{i:03d}")
        assert np.array_equal(target.latency_samples(run.id), np.full(20, i, np.float32))
