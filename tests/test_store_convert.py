"""A database of perftui 0.1 (layout 7) converted once by the first write, its old files kept
as a backup; a read never writes and says which command converts it (perftui.store.convert).

The layout-7 reader is perftui.store.upgrade's; the first tests stand in a small fake of its
interface, the last one converts a database the 0.1 store's own code wrote."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.domain.records import BenchmarkRequest, RunConfig, StoredBenchmark
from perftui.store.database import Store
from tests.store_helpers import REPO, make_project, make_run, tree

OLD = "5bedc5b"
"""The last commit of the 0.1 store (layout 7)."""


def fake_upgrade(monkeypatch: pytest.MonkeyPatch, fail_at: int | None = None) -> None:
    """perftui.store.upgrade's interface over a file `{"layout7": [project names]}` with a
    folder `<db>.d` beside it; `fail_at`: the record at which reading meets damage."""

    def is_layout7(path: Path) -> bool:
        try:
            return "layout7" in json.loads(path.read_text())
        except (OSError, ValueError):
            return False

    def read_layout7(path: Path) -> Iterator[object]:
        for n, name in enumerate(json.loads(path.read_text())["layout7"]):
            if n == fail_at:
                raise StoreError(f"database {path} is damaged (the runs of {name})")
            project = make_project(name, f"/m/{name}")
            yield project
            request = BenchmarkRequest(project=project, configs=(RunConfig(),))
            yield StoredBenchmark(f"b{n}", name, "2025-01-01T00:00:00+00:00", request)
            for i in range(3):
                run = make_run(name, id=f"{name}{i}", benchmark_id=f"b{n}", throughput_fps=10.0 + i)
                yield run, np.full(7, float(i), np.float32)

    module = types.ModuleType("perftui.store.upgrade")
    module.is_layout7 = is_layout7  # type: ignore[attr-defined]
    module.layout7_files = lambda path: [path, path.with_name(path.name + ".d")]  # type: ignore[attr-defined]
    module.read_layout7 = read_layout7  # type: ignore[attr-defined]
    module.older_layout = lambda path: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "perftui.store.upgrade", module)
    import perftui.store

    monkeypatch.setattr(perftui.store, "upgrade", module, raising=False)


def old_database(tmp_path: Path) -> Path:
    path = tmp_path / "db" / "perftui.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"layout7": ["A", "B"]}))
    (path.with_name("perftui.json.d")).mkdir()
    (path.with_name("perftui.json.d") / "runs.json").write_text("old runs")
    return path


def test_a_read_of_layout7_says_which_command_converts_it_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_upgrade(monkeypatch)
    path = old_database(tmp_path)
    before = tree(tmp_path)
    store = Store(path)
    assert store.convertible()
    with pytest.raises(StoreError, match=r"layout 7\); `perftui doctor --repair`") as info:
        store.projects()
    assert "\n" not in str(info.value)
    assert store.diagnose().repairable and tree(tmp_path) == before


def test_the_first_write_converts_once_keeping_the_old_files_and_every_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_upgrade(monkeypatch)
    path = old_database(tmp_path)
    said: list[str] = []
    Store(path, notify=said.append).add_project(make_project("C", "/m/c"))
    assert len(said) == 1 and "converted from perftui 0.1's layout 7 (6 run(s))" in said[0]
    backup = path.with_name("perftui.json.layout7")
    assert sorted(p.name for p in backup.iterdir()) == ["perftui.json", "perftui.json.d"]
    assert json.loads((backup / "perftui.json").read_text()) == {"layout7": ["A", "B"]}
    store = Store(path)
    assert not store.convertible()
    assert [p.name for p in store.projects()] == ["A", "B", "C"]
    for name in ("A", "B"):
        runs = store.runs(name)
        assert sorted(r.id for r in runs) == [f"{name}0", f"{name}1", f"{name}2"]
        assert np.array_equal(store.latency_samples(f"{name}2"), np.full(7, 2.0, np.float32))
        assert [b.id for b in store.project_benchmarks(name)] == [f"b{'AB'.index(name)}"]
    summary = dict((p.name, s) for p, s in store.summaries())["A"]
    assert summary.runs == 3 and summary.best_throughput_fps == pytest.approx(11.0)
    assert store.diagnose().problems == []


def test_a_conversion_that_meets_damage_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_upgrade(monkeypatch, fail_at=1)
    path = old_database(tmp_path)
    before = tree(tmp_path)
    with pytest.raises(StoreError, match="the runs of B"):
        Store(path).add_project(make_project("C", "/m/c"))
    assert {k: v for k, v in tree(tmp_path).items() if not k.endswith(".lock")} == before


MAKE_OLD = textwrap.dedent(
    """
    import sys
    import numpy as np
    from perftui.domain.records import BenchmarkRequest, RunConfig
    from perftui.store.database import Store
    sys.path.append(sys.argv[2])
    from tests.store_helpers import make_project, make_run

    store = Store(sys.argv[1])
    for name in ("A", "B"):
        project = store.ensure_project(make_project(name, f"/m/{name}"))
        bid = store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))
        for i in range(3):
            run = make_run(name, benchmark_id=bid, throughput_fps=10.0 + i)
            store.add_run(run, np.arange(i + 5, dtype=np.float32))
    """
)


def test_a_database_the_0_1_store_wrote_is_converted_with_every_run_sample_and_figure(
    tmp_path: Path,
) -> None:
    pytest.importorskip("perftui.store.upgrade")
    old = tmp_path / "old"
    old.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", OLD, "perftui", "tests/store_helpers.py"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    path = tmp_path / "db" / "perftui.json"
    subprocess.run(
        [sys.executable, "-c", MAKE_OLD, str(path), str(old)],
        env={"PYTHONPATH": str(old), "PATH": "/usr/bin:/bin"},
        cwd=old,  # not this checkout's perftui
        check=True,
    )
    expected = subprocess.run(
        [sys.executable, "-c", SHOW_OLD, str(path)],
        env={"PYTHONPATH": str(old), "PATH": "/usr/bin:/bin"},
        cwd=old,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    store = Store(path)
    assert store.convertible()
    store.upkeep()
    assert json.loads(expected) == json.loads(json.dumps(described(Store(path))))


def described(store: Store) -> dict:
    """Every project's summary, benchmarks, runs, samples and figures, as JSON values."""
    found = {}
    for project, summary in store.summaries():
        runs = store.runs(project.name)
        found[project.name] = {
            "summary": [summary.runs, summary.best_throughput_fps, summary.best_latency_ms],
            "benchmarks": [b.to_dict() for b in store.project_benchmarks(project.name)],
            "runs": {r.id: r.to_dict() for r in runs},
            "samples": {r.id: store.latency_samples(r.id).tolist() for r in runs},
            "figures": {r.id: store.figures(r.id).to_dict() for r in runs},
        }
    return found


SHOW_OLD = (
    "import json, sys\nfrom perftui.store.database import Store\n"
    + inspect.getsource(described)
    + "\nprint(json.dumps(described(Store(sys.argv[1]))))\n"
)
