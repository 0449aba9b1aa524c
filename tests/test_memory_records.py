"""Memory on a run: the record, the store, export/import, the probe's readings and limits."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from perftui.bench import memory as probe
from perftui.domain.errors import InputError
from perftui.domain.limits import parse_memory_limit
from perftui.domain.measurement.memory import RunMemory, memory_findings
from perftui.domain.records import RunResult
from perftui.exchange.documents import import_document, parse_export, write_export
from perftui.store.database import Store
from tests.store_helpers import make_project, make_run

MEMORY = RunMemory(
    baseline_mib=80.0,
    compile_peak_mib=150.5,
    window_peak_mib=210.25,
    end_mib=200.0,
    model_mib=97.75,
    available_mib=20_000.0,
)


def test_record_round_trip_and_increases() -> None:
    data = MEMORY.to_dict()
    assert data["window_increase_mib"] == pytest.approx(130.25)
    assert data["compile_increase_mib"] == pytest.approx(70.5)
    assert RunMemory.from_dict(json.loads(json.dumps(data))) == MEMORY
    run = replace(make_run("fp32"), memory=MEMORY)
    assert RunResult.from_dict(run.to_dict()) == run


def test_unknown_is_none_never_zero() -> None:
    old = make_run("fp32").to_dict()
    old.pop("memory")
    assert RunResult.from_dict(old).memory is None  # stored before memory was measured
    partial = RunMemory(baseline_mib=None, window_peak_mib=100.0)
    assert partial.window_increase_mib is None and partial.to_dict()["end_mib"] is None
    assert RunMemory.from_dict({"window_peak_mib": -1, "end_mib": "x"}) == RunMemory()


def test_store_round_trip(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.json")
    store.ensure_project(make_project("fp32"))
    added = store.add_run(replace(make_run("fp32"), memory=MEMORY))
    bare = store.add_run(make_run("fp32", started_at="2025-01-02T00:00:00+00:00"))
    runs = {run.id: run for run in Store(tmp_path / "db.json").runs("fp32")}
    assert runs[added.id].memory == MEMORY
    assert runs[bare.id].memory is None


def test_export_import_round_trip(tmp_path: Path) -> None:
    source = Store(tmp_path / "a.json")
    source.ensure_project(make_project("fp32"))
    source.add_run(replace(make_run("fp32"), memory=MEMORY))
    out = io.StringIO()
    write_export(source, out)
    document = parse_export(out.getvalue())
    assert document["projects"][0]["runs"][0]["memory"]["window_peak_mib"] == 210.25
    target = Store(tmp_path / "b.json")
    import_document(target, document)
    assert [run.memory for run in target.runs("fp32")] == [MEMORY]
    document["projects"][0]["runs"][0]["memory"]["end_mib"] = -5
    with pytest.raises(InputError, match="memory"):
        import_document(Store(tmp_path / "c.json"), document)


def test_close_to_available_memory_is_a_reason() -> None:
    assert memory_findings(MEMORY) == []
    tight = replace(MEMORY, available_mib=15.0)  # peak 210 of 215 it could have had
    assert "came within 10%" in memory_findings(tight)[0]
    assert memory_findings(replace(MEMORY, available_mib=None)) == []


def test_probe_reads_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(probe, "_BASELINE", [])  # as a fresh worker
    peak, now = probe.sizes()
    if now is None:
        pytest.skip("no /proc/self/status here")
    assert peak is not None and peak >= now > 1.0
    reading = probe.MemoryProbe(str(Path(__file__)), on=True)
    reading.before_read()
    ballast = bytearray(64 * 1024 * 1024)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page
    reading.after_compile()
    del ballast
    reading.window_start()
    reading.window_end()
    result = reading.result()
    assert result is not None and result.baseline_mib is not None
    if probe.reset_peak():
        assert result.compile_increase_mib is not None and result.compile_increase_mib >= 60
        assert (
            result.window_peak_mib is not None and result.window_peak_mib < result.compile_peak_mib
        )
    assert result.model_mib == pytest.approx(Path(__file__).stat().st_size / 2**20)
    assert probe.MemoryProbe("x", on=False).result() is None


def test_a_refused_reset_leaves_peaks_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(probe, "reset_peak", lambda *_: False)
    reading = probe.MemoryProbe("missing.onnx", on=True)
    reading.before_read()
    reading.after_compile()
    reading.window_start()
    reading.window_end()
    result = reading.result()
    assert result is not None
    assert result.compile_peak_mib is None and result.window_peak_mib is None
    assert result.model_mib is None
    if probe.sizes()[1] is not None:
        assert result.end_mib is not None


@pytest.mark.parametrize("text", ["0", "-5", "abc", "", "nan", "inf", "1e30"])
def test_bad_memory_limits(text: str) -> None:
    with pytest.raises(InputError, match="memory limit"):
        parse_memory_limit(text)


def test_memory_limit() -> None:
    assert parse_memory_limit(" 512 ") == 512.0
    assert parse_memory_limit("0.5") == 0.5


def test_a_peak_close_to_the_available_memory_makes_a_run_noisy() -> None:
    from perftui.domain.measurement.verdict import NOISY, STABLE, judge
    from tests.test_verdict import STEADY
    from tests.test_verdict import make_run as steady_run

    assert judge(steady_run(memory=MEMORY), STEADY).status == STABLE
    verdict = judge(steady_run(memory=replace(MEMORY, available_mib=10.0)), STEADY)
    assert verdict.status == NOISY and verdict.reasons[0].startswith("memory: its peak 210.2")
