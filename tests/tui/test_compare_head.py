"""The compare summary's header shows each side's figures as the Inference tab does: the
configuration's combined figures with their intervals (it showed bare run figures)."""

from __future__ import annotations

import numpy as np

from perftui.domain.compare import compare_projects
from perftui.domain.records import RunResult
from perftui.tui.compare.summary import head_text
from tests.factories import run_result


def run(rid: str, median: float) -> RunResult:
    return run_result(
        1000.0 / median,
        median,
        iterations=2000,
        duration_s=2000 * median / 1000.0,
        resolved={"precision": "f32"},
        id=rid,
    )


def test_the_header_carries_the_intervals_of_the_inference_tab():
    rng = np.random.default_rng(0)
    samples = {
        "a": rng.normal(2.0, 0.05, 2000).clip(1.5),
        "b": rng.normal(1.0, 0.02, 2000).clip(0.8),
    }
    c = compare_projects(
        "fp32", [run("a", 2.0)], "int8", [run("b", 1.0)], samples=lambda r: samples[r.id]
    )
    text = head_text(c, 160).plain
    assert text.count("±") >= 4, text  # throughput and latency, both sides
    group = c.groups[0]
    assert group is not None and group.figures.throughput is not None
