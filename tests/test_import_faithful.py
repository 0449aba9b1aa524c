"""An import stores what the export holds, judged as the export's database judged it, or
refuses it in one line: runs on their project's line, a run id twice, a profile's weight
in a verdict, and what the import says it skipped."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import LayerProfile, RunConfig
from perftui.exchange.documents import import_document
from perftui.exchange.importer import import_file
from perftui.store.database import Store
from tests.cli_helpers import one_error_line, perftui
from tests.store_helpers import make_project, make_run, tree
from tests.test_exchange import export_document
from tests.test_import_stream import filled
from tests.test_import_workers import workers  # noqa: F401 (a fixture)


def test_a_project_line_holding_its_runs_imports_them(tmp_path: Path) -> None:
    """Valid JSON with the export's head line and each project whole on a line of its own:
    read whole, runs and all, not taken for projects without runs."""
    _, export = filled(tmp_path)
    document = json.loads(export.read_text())
    head = json.dumps({k: v for k, v in document.items() if k != "projects"})
    lines = [head[:-1] + ',"projects":[']
    lines += [json.dumps(p) + ("," if n else "") for n, p in enumerate(document["projects"])][::-1]
    export.write_text("\n".join([*lines, "]}"]) + "\n")
    done = perftui("--db", str(tmp_path / "target.json"), "import", str(export))
    assert done.returncode == 0, done.stderr
    assert "2 project(s) and 3 run(s)" in done.stdout
    assert len(Store(tmp_path / "target.json").runs("p")) == 3


@pytest.mark.parametrize("by_workers", [False, True])
def test_a_run_id_twice_in_an_export_is_refused(
    tmp_path: Path, by_workers: bool, request: pytest.FixtureRequest
) -> None:
    if by_workers:
        request.getfixturevalue("workers")
    _, export = filled(tmp_path)
    lines = export.read_text().splitlines(keepends=True)
    runs = [n for n, line in enumerate(lines) if '"latency_samples"' in line]
    first = json.loads(lines[runs[0]].rstrip().rstrip(","))["id"]
    second = json.loads(lines[runs[1]].rstrip().rstrip(","))["id"]
    lines[runs[1]] = lines[runs[1]].replace(second, first)
    export.write_text("".join(lines))
    target = Store(tmp_path / "target.json")
    target.ensure_project(make_project("kept"))
    before = tree(tmp_path / "target.json.projects"), (tmp_path / "target.json").read_bytes()
    with pytest.raises(InputError, match=rf"runs\[1\]: run id '{first}' appears twice"):
        import_file(target, export, "x")
    assert (
        tree(tmp_path / "target.json.projects"),
        (tmp_path / "target.json").read_bytes(),
    ) == before


def test_an_imported_profile_weighs_in_its_verdict_as_it_did_where_it_was_measured(
    tmp_path: Path,
) -> None:
    """A sync run whose profile's layers add up to far more than its median latency is
    noisy where it was measured, and so once exported and imported."""
    source = Store(tmp_path / "source.json")
    source.ensure_project(make_project("p"))
    layers = tuple(
        LayerProfile(f"l{n}", "Convolution", "jit", "FP32", "executed", 5.0) for n in range(10)
    )
    run = make_run("p", config=RunConfig(api="sync"), layers=layers)
    samples = np.random.default_rng(1).gamma(40.0, 0.05, 2000)
    stored = source.add_run(replace(run, layers=layers), samples)
    verdict = source.figures(stored.id).verdict
    assert verdict.status == "noisy" and "layer sum" in " ".join(verdict.reasons)
    target = Store(tmp_path / "target.json")
    assert import_document(target, export_document(source)) == (1, 1)
    assert target.figures(stored.id).verdict == verdict
    (_, summary), *_ = target.summaries()
    assert summary == next(s for _, s in source.summaries())


def test_an_import_says_how_many_runs_it_skipped_as_stored_already(tmp_path: Path) -> None:
    _, export = filled(tmp_path)
    said: list[str] = []
    target = Store(tmp_path / "target.json", notify=said.append)
    assert import_file(target, export, "x") == (2, 3)
    assert not [line for line in said if "skipped" in line]
    assert import_file(target, export, "x") == (0, 0)
    assert [line for line in said if "skipped" in line] == [
        "skipped 3 run(s) stored already (each run is stored once)"
    ]


def test_a_cut_export_is_not_json_and_not_taken_for_csv(tmp_path: Path) -> None:
    _, export = filled(tmp_path)
    text = export.read_text()
    export.write_text(text[: len(text) // 2])
    done = perftui("--db", str(tmp_path / "target.json"), "import", str(export))
    line = one_error_line(done)
    assert "is not JSON (Unterminated string starting at: line" in line
    assert "CSV" not in line and not (tmp_path / "target.json").exists()


def test_a_project_of_the_same_name_elsewhere_names_both_targets(tmp_path: Path) -> None:
    source, export = filled(tmp_path)
    target = Store(tmp_path / "target.json")
    project = source.get_project("p")
    assert project is not None
    target.ensure_project(replace(project, target="box"))
    with pytest.raises(InputError) as info:
        import_file(target, export, "x")
    assert "(target box), but the import has" in str(info.value)
    assert "(target local); rename one of them first" in str(info.value)


def test_project_for_an_export_is_refused_not_ignored(tmp_path: Path) -> None:
    _, export = filled(tmp_path)
    done = perftui("--db", str(tmp_path / "t.json"), "import", str(export), "--project", "x")
    assert "--project names the project of a benchmark_app report" in one_error_line(done)
    assert not (tmp_path / "t.json").exists()
