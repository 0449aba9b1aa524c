"""A run's `resolved` (domain.records.Resolved): one meaning per key on both engines, and
older stored runs read into the same meanings without their files being rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from perftui.domain.charts.series import model_summary
from perftui.domain.records import RunConfig, RunResult, read_resolved
from perftui.engines import get_engine
from tests.test_engines import _prepare, _tiny_model


@pytest.mark.engine
@pytest.mark.parametrize(("threads", "said"), [(0, None), (2, 2)])
def test_onnxruntime_says_none_for_threads_it_chose_and_has_no_hint(
    threads: int, said: int | None, tmp_path: Path
):
    tiny = _tiny_model(tmp_path / "tiny.onnx", "N")
    prepared = _prepare(get_engine("onnxruntime"), tiny, RunConfig(threads=threads))
    assert prepared.resolved["threads"] == said
    assert prepared.resolved["hint"] is None and prepared.resolved["precision"] == "model"


def test_older_runs_words_for_not_said_read_as_none():
    stored = {"threads": "auto", "hint": "n/a (onnxruntime)", "requests": 2, "streams": 1}
    assert read_resolved(stored) == {"threads": None, "hint": None, "requests": 2, "streams": 1}
    assert read_resolved({"threads": 4, "hint": "latency"}) == {"threads": 4, "hint": "latency"}
    assert read_resolved(None) == {}


def test_a_stored_run_reads_the_same_through_its_record():
    old = RunResult(RunConfig(threads=0), resolved={"threads": "auto"}).to_dict()  # type: ignore[typeddict-item]
    run = RunResult.from_dict(old)
    assert run.resolved["threads"] is None
    assert RunResult.from_dict(run.to_dict()) == run
    assert model_summary(run).threads == "auto"
    told = RunResult.from_dict({**old, "resolved": {"threads": 8}})
    assert model_summary(told).threads == "auto (8)"
