"""A capacity search's benchmark through an import's schema: kept whole, refused in one line
where its objectives or outcome are not a search's."""

from __future__ import annotations

from typing import Any

import pytest

from perftui.domain.records import BenchmarkRequest, Project, RunConfig, StoredBenchmark
from perftui.domain.traffic.objective import parse_objectives
from perftui.domain.traffic.search import CapacitySearch
from perftui.exchange import schema
from perftui.exchange.schema import SchemaError


def document(**capacity: Any) -> dict[str, Any]:
    request = BenchmarkRequest(Project("p", "/m.onnx", "openvino"), (RunConfig(),))
    search = CapacitySearch(parse_objectives("p99=50ms,median=5ms"), 60.0).ending(None, 58.5)
    doc = StoredBenchmark("b" * 32, "p", "2026-11-29T09:00:00+00:00", request, search).to_dict()
    doc["capacity"].update(capacity)
    return doc


def test_a_search_s_benchmark_passes_the_schema_and_reads_back_whole() -> None:
    checked = schema.benchmark(document(), "benchmarks[0]")
    found = StoredBenchmark.from_dict(checked)
    assert found.capacity is not None
    assert found.capacity.objectives == parse_objectives("p99=50ms,median=5ms")
    assert (found.capacity.ended, found.capacity.elapsed_s) == (True, 58.5)


@pytest.mark.parametrize(
    ("capacity", "said"),
    [
        ({"objectives": "x"}, "capacity.objectives: expected a list"),
        ({"objectives": []}, "one objective or more"),
        ({"objectives": [{"statistic": "p42", "bound_ms": 5}]}, "expected one of median"),
        ({"objectives": [{"statistic": "p99", "bound_ms": -1}]}, "bound_ms: expected a number"),
        ({"budget_s": float("nan")}, "budget_s: expected a number"),
        ({"ended": "yes"}, "ended"),
    ],
)
def test_a_malformed_search_is_refused_at_the_boundary(capacity: dict[str, Any], said: str) -> None:
    with pytest.raises(SchemaError, match=said):
        schema.benchmark(document(**capacity), "benchmarks[0]")
