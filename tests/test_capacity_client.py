"""The capacity search's parent (CapacityClient) with a stand-in child that dies mid-search:
the finished run is kept, the lost one is stored failed at the rate it was searching, and
the search's end says so."""

from __future__ import annotations

import sys

import pytest

from perftui.bench.capacity import CapacityClient
from perftui.bench.protocol import BenchmarkDone
from perftui.cli.capacity import _why_not
from perftui.domain.records import BenchmarkRequest, Project, RunConfig
from perftui.domain.traffic.objective import parse_objectives
from perftui.domain.traffic.search import CapacitySearch

DYING_CHILD = (
    "import json, os, sys\n"
    "from perftui.bench import protocol\n"
    "from perftui.domain.records import RunConfig, RunResult\n"
    "message = json.loads(sys.stdin.readline())\n"
    "assert message['objectives'] == [{'statistic': 'p99', 'bound_ms': 10.0}], message\n"
    "assert message['budget_s'] == 30.0, message\n"
    "for event in (\n"
    "    protocol.RunStarted(0, 1, RunConfig()),\n"
    "    protocol.RunFinished(0, RunResult(RunConfig(), throughput_fps=100.0), None),\n"
    "    protocol.RunStarted(1, 0, RunConfig(rate=50.0)),\n"
    "):\n"
    "    print(protocol.encode(event), flush=True)\n"
    "print('the engine aborted', file=sys.stderr, flush=True)\n"
    "os._exit(3)\n"
)


def test_a_child_that_dies_mid_search_leaves_its_runs_and_the_reason(
    store,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(CapacityClient, "worker_command", (sys.executable, "-c", DYING_CHILD))
    project = Project("mn", "/models/mn.onnx", "openvino")
    search = CapacitySearch(parse_objectives("p99=10ms"), 30.0)
    client = CapacityClient(BenchmarkRequest(project, (RunConfig(),)), search, store)
    events = list(client.events())
    assert isinstance(events[-1], BenchmarkDone) and not events[-1].cancelled
    closed, lost = store.runs("mn")[::-1]  # newest first
    assert closed.status == "ok" and closed.config.rate is None
    assert lost.status == "failed" and lost.config.rate == 50.0
    assert "died (exit status 3): the engine aborted" in (lost.error or "")
    assert all(run.repetition == 0 for run in (closed, lost))
    why = _why_not(client, None)
    assert why.startswith("the search failed at 50 requests/s: the benchmark worker died")
    (benchmark,) = store.project_benchmarks("mn")
    assert benchmark.capacity == search  # stored when it started, before anything ran
