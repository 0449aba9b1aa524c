"""Export and import: JSON round trips, idempotent re-import, bad documents, CSV."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest, RunConfig
from perftui.store.database import Store
from perftui.store.exchange import (
    CSV_COLUMNS,
    export_csv,
    export_document,
    import_document,
    parse_export,
)
from tests.test_store import make_project, make_run


@pytest.fixture
def filled(tmp_path: Path) -> Store:
    store = Store(tmp_path / "src.json")
    fp32 = store.ensure_project(make_project("fp32", notes={"tag": "baseline"}))
    store.ensure_project(
        make_project("int8", model="/models/int8.xml", engine="openvino", source_project="fp32")
    )
    store.ensure_project(make_project("empty", model="/models/e.onnx"))
    bid = store.add_benchmark(BenchmarkRequest(project=fp32, configs=(RunConfig(batch=4),)))
    rng = np.random.default_rng(3)
    for i in range(3):
        store.add_run(
            make_run("fp32", benchmark_id=bid, started_at=f"2025-01-0{i + 1}T00:00:00+00:00"),
            rng.random(500, dtype=np.float32),
        )
    store.add_run(make_run("int8", layers=None, status="failed", error='x, "y"\nz'))
    return store


def snapshot(store: Store) -> dict:
    return {
        p.name: (
            p,
            store.runs(p.name),
            [store.latency_samples(r.id) for r in store.runs(p.name)],
            store.project_benchmarks(p.name),
        )
        for p in store.projects()
    }


def test_export_shape(filled: Store) -> None:
    doc = export_document(filled)
    assert doc["perftui_export"] == 1 and doc["exported_at"]
    assert [p["name"] for p in doc["projects"]] == ["empty", "fp32", "int8"]
    fp32 = doc["projects"][1]
    assert fp32["notes"] == {"tag": "baseline"} and len(fp32["runs"]) == 3
    run = fp32["runs"][0]
    assert run["started_at"].startswith("2025-01-03")  # newest first
    for key in ("config", "status", "latency_ms", "layers", "throughput_fps", "resolved"):
        assert key in run
    assert run["latency_samples"]["count"] == 500
    assert len(fp32["benchmarks"]) == 1
    json.dumps(doc)  # serializable
    only = export_document(filled, ["int8"], include_samples=False)
    assert [p["name"] for p in only["projects"]] == ["int8"]
    assert "latency_samples" not in only["projects"][0]["runs"][0]


def test_unknown_project_is_input_error(filled: Store) -> None:
    with pytest.raises(InputError, match="no project named 'nope'"):
        export_document(filled, ["fp32", "nope"])
    with pytest.raises(InputError, match="no project named 'nope'"):
        export_csv(filled, ["nope"])


def test_export_import_round_trip(filled: Store, tmp_path: Path) -> None:
    doc = json.loads(json.dumps(export_document(filled)))  # through text, as the CLI does
    target = Store(tmp_path / "dst" / "db.json")
    assert import_document(target, doc) == (3, 4)
    before, after = snapshot(filled), snapshot(target)
    assert before.keys() == after.keys()
    for name in before:
        p1, runs1, samples1, bench1 = before[name]
        p2, runs2, samples2, bench2 = after[name]
        assert p1 == p2 and runs1 == runs2 and bench1 == bench2
        for a, b in zip(samples1, samples2, strict=True):
            assert (a is None and b is None) or np.array_equal(a, b)
    # importing again adds nothing and does not rewrite the file
    mtime = target.path.stat().st_mtime_ns
    assert import_document(target, doc) == (0, 0)
    assert target.path.stat().st_mtime_ns == mtime
    # a partial overlap adds only the new runs
    filled.add_run(make_run("fp32"))
    assert import_document(target, export_document(filled)) == (0, 1)


def test_import_into_existing_projects(filled: Store, tmp_path: Path) -> None:
    target = Store(tmp_path / "dst.json")
    target.ensure_project(make_project("fp32"))  # same model/engine/device: fine
    assert import_document(target, export_document(filled)) == (2, 4)
    other = Store(tmp_path / "other.json")
    other.ensure_project(make_project("fp32", model="/elsewhere.onnx"))
    with pytest.raises(InputError, match=r"'fp32' already exists with model /elsewhere\.onnx"):
        import_document(other, export_document(filled))
    assert other.runs("fp32") == [] and other.get_project("int8") is None  # all or nothing


def test_runs_without_ids_get_new_ones(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.json")
    doc = {
        "perftui_export": 1,
        "projects": [
            {
                "name": "p",
                "model": "/m.onnx",
                "engine": "openvino",
                "runs": [{"config": {"batch": 2}, "project": "ignored"}],
            }
        ],
    }
    assert import_document(store, doc) == (1, 1)
    (run,) = store.runs("p")
    assert run.id and run.project == "p" and run.config.batch == 2


def _good(filled: Store) -> dict:
    return json.loads(json.dumps(export_document(filled)))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: [], "not a perftui export"),
        (lambda d: {"projects": d["projects"]}, "perftui_export"),
        (lambda d: {**d, "perftui_export": "1"}, "unknown format"),
        (lambda d: {**d, "perftui_export": 2}, "newer perftui"),
        (lambda d: {**d, "projects": {}}, '"projects" is not a list'),
        (lambda d: {**d, "projects": [1]}, "project #1 is not an object"),
        (lambda d: {**d, "projects": [{"name": "x"}]}, "project #1 has no 'model'"),
        (lambda d: {**d, "projects": [d["projects"][1]] * 2}, "appears twice"),
        (lambda d: d["projects"][1].update(runs={}) or d, "'runs' is not a list"),
        (lambda d: d["projects"][1]["runs"][0].pop("config") and d, "no 'config'"),
        (lambda d: d["projects"][1]["runs"][0].update(status="meh") or d, "unknown status"),
        (lambda d: d["projects"][1]["runs"][0].update(iterations="x") or d, "malformed"),
        (lambda d: d["projects"][1]["runs"][0].update(layers=[1]) or d, "'layers'"),
        (
            lambda d: d["projects"][1]["runs"][0]["latency_samples"].update(data="@@") or d,
            "undecodable samples",
        ),
        (lambda d: d["projects"][1]["benchmarks"][0].pop("id") and d, "benchmark #1"),
        (
            lambda d: d["projects"][1]["benchmarks"][0].pop("configs") and d,
            "benchmark #1 is malformed",
        ),
    ],
)
def test_bad_documents_are_input_errors(filled: Store, tmp_path: Path, mutate, message) -> None:
    target = Store(tmp_path / "dst.json")
    document = mutate(copy.deepcopy(_good(filled)))
    with pytest.raises(InputError, match=message) as info:
        import_document(target, document)
    assert "\n" not in str(info.value)
    assert not target.path.exists()  # nothing written


def test_parse_export(filled: Store) -> None:
    text = json.dumps(export_document(filled))
    assert parse_export(text)["perftui_export"] == 1
    with pytest.raises(InputError, match="looks like CSV"):
        parse_export(export_csv(filled), "runs.csv")
    with pytest.raises(InputError, match="not JSON"):
        parse_export("{oops")
    with pytest.raises(InputError, match="expected a JSON object"):
        parse_export("[]")


def test_csv(filled: Store) -> None:
    text = export_csv(filled)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(csv.reader(io.StringIO(text)).__next__()) == CSV_COLUMNS
    assert len(rows) == 4  # one per run
    fp32 = [r for r in rows if r["project"] == "fp32"]
    assert [r["started_at"][:10] for r in fp32] == ["2025-01-03", "2025-01-02", "2025-01-01"]
    first = fp32[0]
    assert first["engine"] == "onnxruntime" and first["device"] == "CPU"
    assert first["batch"] == "4" and first["streams"] == "2" and first["requests"] == "auto"
    assert first["hint"] == "throughput" and first["api"] == "async" and first["precision"] == ""
    assert float(first["latency_median_ms"]) == 1.9 and float(first["latency_p99_ms"]) == 3.5
    assert float(first["throughput_fps"]) == 456.5 and float(first["compile_ms"]) == 120.5
    (failed,) = [r for r in rows if r["project"] == "int8"]
    assert failed["status"] == "failed" and failed["error"] == 'x, "y"\nz'
    assert export_csv(filled, ["empty"]).strip() == ",".join(CSV_COLUMNS)
