"""Export and import: JSON round trips, idempotent re-import, bad documents, CSV."""

from __future__ import annotations

import base64
import copy
import csv
import io
import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest, RunConfig
from perftui.exchange.documents import (
    CSV_COLUMNS,
    export_csv,
    import_document,
    parse_export,
    write_export,
)
from perftui.store.database import Store
from tests.store_helpers import make_project, make_run


def export_document(store: Store, projects=None, *, include_samples: bool = True) -> dict:
    """The export as the CLI streams it, parsed back."""
    out = io.StringIO()
    write_export(store, out, projects, include_samples=include_samples)
    return json.loads(out.getvalue())


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
    assert run["started_at"].startswith("2025-01-01")  # as stored: the oldest first here
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


def test_runs_of_one_second_keep_their_order_through_a_round_trip(tmp_path: Path) -> None:
    source = Store(tmp_path / "a.json")
    source.add_project(make_project("p"))
    for n in range(3):  # a matrix's runs, each under a second
        source.add_run(make_run("p", id=f"r{n}", started_at="2026-01-01T00:00:00+00:00"))
    target = Store(tmp_path / "b.json")
    import_document(target, json.loads(json.dumps(export_document(source))))
    assert (
        [r.id for r in target.runs("p")] == [r.id for r in source.runs("p")] == ["r2", "r1", "r0"]
    )


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


def _run(document: dict) -> dict:
    return document["projects"][1]["runs"][0]


def _config(document: dict) -> dict:
    return _run(document)["config"]


def _bench(document: dict) -> dict:
    return document["projects"][1]["benchmarks"][0]


def _deep(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels):
        value = {"x": value}
    return value


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
        (lambda d: {**d, "projects": [1]}, r"projects\[0\]: expected an object"),
        (lambda d: {**d, "projects": [{"name": "x"}]}, r"projects\[0\]\.model: missing"),
        (lambda d: {**d, "projects": [d["projects"][1]] * 2}, "appears twice"),
        (lambda d: d["projects"][1].update(runs={}) or d, r"projects\[1\]\.runs: expected a list"),
        (lambda d: d["projects"][1].update(engine="os.system") or d, r"\.engine: expected one of"),
        (lambda d: d["projects"][1].update(name="a\ud800") or d, r"\.name: .*lone surrogate"),
        (lambda d: _run(d).pop("config") and d, r"runs\[0\]\.config: missing"),
        (lambda d: _run(d).update(status="meh") or d, r"\.status: expected one of ok"),
        (lambda d: _run(d).update(iterations="x") or d, r"\.iterations: expected a whole"),
        (lambda d: _run(d).update(layers=[1]) or d, r"\.layers\[0\]: expected an object"),
        (lambda d: _run(d).update(error={"a": 1}) or d, r"\.error: expected text"),
        (lambda d: _run(d).update(started_at=5) or d, r"\.started_at: expected an ISO"),
        (lambda d: _run(d).update(id="../../etc") or d, r"\.id: expected an id"),
        (lambda d: _config(d).update(batch="abc") or d, r"config\.batch: expected a whole"),
        (lambda d: _config(d).update(batch=[1]) or d, r"config\.batch"),
        (lambda d: _config(d).update(batch=-5) or d, r"config\.batch"),
        (lambda d: _config(d).update(threads="x") or d, r"config\.threads"),
        (lambda d: _config(d).update(hint=5) or d, r"config\.hint: expected one of"),
        (lambda d: _config(d).update(api="evil") or d, r"config\.api: expected one of"),
        (lambda d: _run(d).update(resolved=_deep(40)) or d, "nested deeper"),
        (
            lambda d: _run(d)["latency_samples"].update(data="@@") or d,
            "undecodable samples",
        ),
        (lambda d: _run(d)["latency_samples"].update(count=3) or d, "more than their count"),
        (lambda d: _bench(d).pop("id") and d, r"benchmarks\[0\]\.id: missing"),
        (lambda d: _bench(d).pop("configs") and d, r"benchmarks\[0\]\.configs: missing"),
        (lambda d: _bench(d).update(seed=-1) or d, r"benchmarks\[0\]\.seed"),
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
    assert first["dims"] == "" and first["precision_run"] == "?"  # these runs say neither


def test_csv_tells_the_rows_of_a_seq_matrix_apart(store: Store) -> None:
    """A seq=32,64 matrix exported to CSV had no dims column: its rows read the same."""
    from dataclasses import replace

    from perftui.domain.records import RunConfig
    from tests.store_helpers import make_project, make_run

    store.add_project(make_project("enc"))
    for seq in (32, 64):
        run = make_run("enc", config=RunConfig(dims=(("seq", seq),)))
        store.add_run(replace(run, resolved={**run.resolved, "precision": "bf16"}))
    rows = list(csv.DictReader(io.StringIO(export_csv(store, ["enc"]))))
    assert sorted(r["dims"] for r in rows) == ["seq=32", "seq=64"]
    assert {r["precision_run"] for r in rows} == {"bf16"}


def test_csv_of_failed_runs(filled: Store) -> None:
    rows = list(csv.DictReader(io.StringIO(export_csv(filled))))
    (failed,) = [r for r in rows if r["project"] == "int8"]
    assert failed["status"] == "failed" and failed["error"] == 'x, "y"\nz'
    assert export_csv(filled, ["empty"]).strip() == ",".join(CSV_COLUMNS)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1e999}', "too large"),
        ('{"a": ' + "9" * 5000 + "}", "5000 digits"),
        ('{"a": NaN}', "NaN"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_numbers_and_nesting_no_export_has(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_export(text)


def test_samples_that_inflate_far_beyond_their_size_are_refused_first(
    filled: Store, tmp_path: Path
) -> None:
    """A small blob claiming (or inflating to) far more samples is refused without inflating
    it whole."""
    bomb = base64.b64encode(zlib.compress(bytes(64 * 2**20), 9)).decode("ascii")
    for count in (16 * 2**20, 1000):  # the truth, and a lie
        document = _good(filled)
        _run(document)["latency_samples"].update(data=bomb, count=count)
        target = Store(tmp_path / f"dst{count}.json")
        with pytest.raises(InputError, match="latency_samples"):
            import_document(target, document)
        assert not target.path.exists()


def test_csv_carries_each_run_s_intervals_and_verdict(filled: Store) -> None:
    """As the store keeps them (and `show` prints them): no figure without its interval."""
    rows = list(csv.DictReader(io.StringIO(export_csv(filled))))

    def cells(interval) -> list[float | None]:
        return [None, None] if interval is None else interval.as_list()

    bounded = 0
    for row in rows:
        figures = filled.figures(row["run_id"])
        assert figures is not None
        assert row["verdict"] == figures.verdict.status
        assert row["verdict_reasons"] == "; ".join(figures.verdict.reasons)
        found = [
            float(row[name]) if row[name] else None
            for name in (
                "throughput_ci_low",
                "throughput_ci_high",
                "latency_median_ci_low_ms",
                "latency_median_ci_high_ms",
            )
        ]
        assert found == cells(figures.throughput) + cells(figures.latency.get("median"))
        bounded += None not in found
    assert bounded  # a row with both intervals bounded
