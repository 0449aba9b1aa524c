"""Per-project figures extended with new runs equal those computed from all the runs."""

from __future__ import annotations

import random
from dataclasses import replace

from perftui.domain.measurement.summary import (
    PrecisionSource,
    benchmark_of,
    config_key,
    extend,
    summarize,
)
from perftui.domain.model.profile import runtime_precision
from perftui.domain.records import LayerProfile, RunConfig, RunResult
from tests.factories import flat_latency, run_result


def run(
    n: int,
    fps: float = 100.0,
    median: float = 5.0,
    *,
    status: str = "ok",
    layers: tuple[LayerProfile, ...] | None = None,
    precision: str | None = None,
) -> RunResult:
    return run_result(
        fps,
        config=RunConfig(batch=n),
        status=status,
        latency_ms=flat_latency(median, low=1, stdev=0.1, cv=0.01),
        layers=layers,
        resolved={"precision": precision} if precision else {},
        id=f"r{n}",
        started_at=f"2025-01-{n:02d}T00:00:00+00:00",
    )


def layer(precision: str, status: str = "executed") -> LayerProfile:
    return LayerProfile("l", "Conv", "jit", precision, status, 1.0)


def test_a_summary_extended_with_new_runs_is_the_summary_of_all_of_them() -> None:
    old = [run(1, 100, 5), run(2, 300, 9), run(3, 50, 2, status="failed")]
    new = [run(4, 200, 4), run(5, 400, 8), run(6, 10, 1, status="failed")]
    heads = {"a": [100.0, 5.0], "b": [300.0, 9.0]}
    more = {**heads, "b": [250.0, 3.0], "c": [None, None]}
    assert extend(summarize(old, heads), new, more) == summarize(old + new, more)
    assert extend(summarize(old, heads), [], heads) == summarize(old, heads)
    assert extend(summarize([]), new, more) == summarize(new, more)


def test_the_best_found_among_the_changed_headlines_is_the_best_of_all() -> None:
    """`extend` told which configurations changed looks at those and the best ones alone,
    and finds what a look at every configuration finds, ties included."""
    rng = random.Random(7)
    values = [None, 1.0, 2.0, 3.0, 5.0, 8.0]
    for _ in range(500):
        heads = {f"k{i}": [rng.choice(values), rng.choice(values)] for i in range(8)}
        summary = summarize([run(1)], heads)
        changed = rng.sample(sorted(heads), rng.randint(0, 3)) + [f"n{i}" for i in range(2)]
        now = {**heads, **{k: [rng.choice(values), rng.choice(values)] for k in changed}}
        assert extend(summary, [run(2)], now, changed) == extend(summary, [run(2)], now)


def test_the_best_is_the_best_configuration_combined() -> None:
    summary = summarize([run(1)], {"x/1": [300.0, 9.0], "y/2": [250.0, 3.0], "z/3": [None, None]})
    assert summary.best_throughput_fps == 300.0 and summary.best_throughput_config == "x/1"
    assert summary.best_latency_ms == 3.0 and summary.best_latency_config == "y/2"
    assert config_key(run(1)) != config_key(run(2))  # another configuration
    assert config_key(run(1)) == config_key(replace(run(1), id="other"))
    assert benchmark_of(config_key(replace(run(1), benchmark_id="b/c"))) == "b/c"


def test_the_precision_source_extended_run_by_run_says_what_runtime_precision_says() -> None:
    cases = [
        [run(1, precision="f32"), run(2, layers=(layer("I8"), layer("FP32"), layer("I8")))],
        [run(1, layers=(layer("I8"),)), run(2, precision="bf16")],
        [run(2, layers=(layer("I8"),)), run(1, layers=(layer("FP32"),))],  # older added later
        [run(1, precision="f32"), run(2, layers=(layer("", "not_run"),))],  # names none
        [run(1, precision="f32"), run(2, precision="model"), run(3, status="failed")],
        [run(1, status="failed", precision="f16")],
        [],
    ]
    for runs in cases:
        whole = PrecisionSource().extend(runs)
        assert whole.text == runtime_precision(runs), runs
        stepwise = PrecisionSource()
        for one in runs:
            stepwise = stepwise.extend([one])
        assert stepwise == whole
        assert PrecisionSource.from_dict(whole.to_dict()) == whole


def test_only_the_newest_profiled_run_needs_its_layers() -> None:
    older = run(1, layers=(layer("FP32"),))
    newer = run(2, layers=(layer("I8"),))
    source = PrecisionSource().extend([replace(older, layers=None), newer])
    assert source.text == "I8"
