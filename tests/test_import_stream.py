"""Import of a file laid out as `perftui export` writes it, read a run at a time: the same
records as a whole read, every refusal one line with nothing stored, progress in MB."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.exchange import progress
from perftui.exchange.documents import write_export
from perftui.exchange.importer import import_file
from perftui.exchange.reader import NotStreamable, read_events
from perftui.store.database import Store
from tests.cli_helpers import one_error_line, perftui
from tests.store_helpers import make_project, make_run
from tests.test_cli_import_hostile import HOSTILE, export_with


def laid_out(document: dict[str, Any]) -> str:
    """The document in the layout of perftui.exchange.documents.export_chunks."""
    dumps = json.dumps
    head = {k: v for k, v in document.items() if k != "projects"}
    parts = [dumps(head)[:-1] + ',"projects":[']
    for p, project in enumerate(document["projects"]):
        fields = dumps({k: v for k, v in project.items() if k != "runs"})
        parts.append(("," if p else "") + "\n" + fields[:-1] + ',"runs":[')
        for r, run in enumerate(project.get("runs", [])):
            parts.append(("," if r else "") + "\n" + dumps(run))
        parts.append("]}")
    parts.append("\n]}\n")
    return "".join(parts)


def filled(tmp_path: Path, runs: int = 3) -> tuple[Store, Path]:
    """A store with two projects (one without runs) and its export file."""
    store = Store(tmp_path / "source.json")
    store.ensure_project(make_project("p"))
    store.ensure_project(make_project("empty", model="/models/e.onnx"))
    rng = np.random.default_rng(0)
    store.add_runs([(make_run("p"), rng.gamma(4.0, 1.0, 300)) for _ in range(runs)])
    path = tmp_path / "export.json"
    with path.open("w", encoding="utf-8") as out:
        write_export(store, out)
    return store, path


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix != ".lock"  # the lock a write takes holds its pid
    }


def test_an_export_file_is_read_a_run_at_a_time(tmp_path: Path) -> None:
    source, path = filled(tmp_path)
    kinds = [kind for kind, *_ in read_events(path, "x")]
    assert kinds == ["head", "project", "project", "run", "run", "run", "end"]  # by name
    target = Store(tmp_path / "target.json")
    assert import_file(target, path, str(path)) == (2, 3)

    def runs(store: Store) -> list[dict[str, Any]]:
        return sorted((r.to_dict() for r in store.runs("p")), key=lambda r: r["id"])

    assert runs(target) == runs(source)
    assert import_file(target, path, str(path)) == (0, 0)  # ids known: nothing added


def test_an_indented_export_is_read_whole(tmp_path: Path) -> None:
    _, path = filled(tmp_path)
    indented = tmp_path / "indented.json"
    indented.write_text(json.dumps(json.loads(path.read_text()), indent=1))
    with pytest.raises(NotStreamable):
        list(read_events(indented, "x"))
    result = perftui("import", str(indented), db=tmp_path / "db.json")
    assert result.returncode == 0, result.stderr
    assert "2 project(s) and 3 run(s)" in result.stdout


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_export_laid_out_as_export_writes_it_is_refused(
    tmp_path: Path, case: str
) -> None:
    document, field = HOSTILE[case]
    path = tmp_path / "hostile.json"
    path.write_text(laid_out(document))
    assert next(read_events(path, "x"))[0] == "head"  # read a run at a time
    db = tmp_path / "db.json"
    assert field in one_error_line(perftui("import", str(path), db=db))
    assert not db.exists()


def test_a_bad_last_run_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    _, path = filled(tmp_path, runs=70)  # more than EARLY: payloads written as they come
    document = json.loads(path.read_text())
    document["projects"][1]["runs"][-1]["latency_samples"]["data"] = "AAAA"
    bad = tmp_path / "bad.json"
    bad.write_text(laid_out(document))
    db = tmp_path / "db" / "db.json"
    Store(db).ensure_project(make_project("other", model="/models/o.onnx"))
    before = digest(db.parent)
    assert "projects[1].runs[69].latency_samples" in one_error_line(
        perftui("import", str(bad), db=db)
    )
    assert digest(db.parent) == before


@pytest.mark.parametrize("name", ["a\u202eb", "a\x85b", "a\x1bb", "   "])
def test_project_names_follow_the_one_name_rule(tmp_path: Path, name: str) -> None:
    for text in (laid_out(export_with({}, name=name)), json.dumps(export_with({}, name=name))):
        path = tmp_path / "named.json"
        path.write_text(text)
        line = one_error_line(perftui("import", str(path), db=tmp_path / "db.json"))
        assert "projects[0].name" in line
        assert not (tmp_path / "db.json").exists()


def test_a_file_cut_short_is_not_json(tmp_path: Path) -> None:
    _, path = filled(tmp_path)
    cut = tmp_path / "cut.json"
    cut.write_bytes(path.read_bytes()[:-40])
    with pytest.raises((NotStreamable, InputError)):
        list(read_events(cut, "x"))
    line = one_error_line(perftui("import", str(cut), db=tmp_path / "db.json"))
    assert "is not JSON" in line


def test_an_import_says_how_many_megabytes_it_has_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, path = filled(tmp_path, runs=4)
    clock = itertools.count(0.0, 10.0)
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    lines: list[str] = []
    import_file(Store(tmp_path / "target.json", notify=lines.append), path, str(path))
    assert lines and all(line.endswith("] 0 of 0 MB (100%)") for line in lines), lines


@pytest.mark.parametrize("name", ["a\u202eb", "a\x85b", "a\u2066b"])
def test_the_store_itself_refuses_names_the_one_rule_refuses(tmp_path: Path, name: str) -> None:
    from perftui.exchange.documents import import_document

    target = Store(tmp_path / "db.json")
    with pytest.raises(InputError, match=r"projects\[0\]\.name: .*terminal would act on"):
        import_document(target, export_with({}, name=name))
    with pytest.raises(InputError, match=r"source_project: .*terminal would act on"):
        import_document(target, export_with({}, source_project=name))
    assert not target.path.exists()


def test_the_quick_checks_agree_with_the_field_by_field_ones() -> None:
    from perftui.exchange import schema

    rows = [
        {"name": "conv", "type": "Convolution", "time_ms": 2, "original_names": ["a"]},
        {"name": "relu", "type": "Relu", "status": "executed", "precision": "I8"},
    ]
    assert schema.layers(rows, "x") == schema.list_of(schema.layer)(rows, "x")
    assert isinstance(schema.layers(rows, "x")[0]["time_ms"], float)
    for bad, field in (
        ({"name": "n", "type": "t", "time_ms": float("nan")}, "x[1].time_ms"),
        ({"name": "n", "type": "t", "status": "odd"}, "x[1].status"),
        ({"name": "a\ud800", "type": "t"}, "x[1].name"),
        ({"name": "n", "type": "t", "extra": {"deep": [[[[[[[[[[[[[1]]]]]]]]]]]]]}}, "extra"),
    ):
        with pytest.raises(InputError, match=re.escape(field)):
            schema.layers([rows[0], bad], "x")
    with pytest.raises(InputError, match=r"r\.k\.a: text that is not valid Unicode"):
        schema.mapping(schema.text(200), schema.free)({"k": {"a": "\udc00"}}, "r")
    nested = {"a": [1, 2.5, None, True, {"b": "c"}]}
    assert schema.free(nested, "r") == nested
