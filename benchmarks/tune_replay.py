"""Replay `perftui tune`'s search on a measured grid: which configuration would the search
end on if each of its trials measured what the grid measured?

benchmarks/tune.py measures a grid and a tune minutes apart, and this machine drifts in
between, so a miss there is the search's or the machine's. The replay separates them: it
runs the real search loop (perftui.tune.search.Tuner) with a measurer that answers each
configuration with the grid's own run of it, for a budget at every 10th percentile of the
grid's latencies. A case where the replay ends below the grid's best is the search's miss.

    .venv/bin/python benchmarks/tune_replay.py --save grids.json [--models mobilenet,...]
    .venv/bin/python benchmarks/tune_replay.py --grids grids.json [--stat p90]

--save measures each model's grid once (the grid of benchmarks/tune.py, a minute or two per
model) and keeps the runs; --grids replays saved grids, in seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tune import GRID, MODELS, perftui  # noqa: E402  (benchmarks/tune.py, beside this)

from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult  # noqa: E402
from perftui.domain.tune_result import Limits, patience  # noqa: E402
from perftui.tune.search import Tuner  # noqa: E402


def key(config: RunConfig) -> tuple[object, ...]:
    return (config.batch, config.threads, config.streams, config.requests)


class Replay:
    """Stands in for perftui.tune.measure.Measurer: each configuration's run is the grid's."""

    cancelled = False

    def __init__(self, runs: list[RunResult]) -> None:
        self.runs = {key(run.config): run for run in runs}

    def cancel(self) -> None:
        self.cancelled = True

    def measure(self, config: RunConfig, _sink: object) -> tuple[RunResult, None, bool]:
        return replace(self.runs[key(config)], config=config), None, False


def measure_grids(names: list[str], seconds: str) -> dict[str, list[dict]]:
    timing = ["--time", seconds, "--iterations", "20", "--warmup", "5"]
    flags = [f"--{k}={v}" for k, v in GRID.items()]
    grids = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            model, shape = MODELS[name]
            doc, wall = perftui(
                Path(tmp) / "grids.json", "bench", str(model), "--project", name, *shape,
                *flags, "--hint", "throughput", "--api", "async", *timing,
            )  # fmt: skip
            grids[name] = doc["runs"]
            print(f"{name}: {len(doc['runs'])} runs in {wall:.0f} s", flush=True)
    return grids


def replay(name: str, runs: list[RunResult], stat: str) -> list[str]:
    ok = [r for r in runs if r.status == "ok" and r.latency_ms is not None]
    latency = {key(r.config): getattr(r.latency_ms, stat) for r in ok}
    configs = tuple(r.config for r in runs)
    request = BenchmarkRequest(Project(name, str(MODELS[name][0]), "openvino"), configs)
    rows = []
    for share in range(10, 100, 10):
        budget = float(np.percentile(list(latency.values()), share))
        fitting = [r for r in ok if latency[key(r.config)] <= budget]
        best = max(fitting, key=lambda r: r.throughput_fps)
        tuner = Tuner(request, configs, stat, budget, Limits(patience=patience(len(configs))), None)
        tuner.measurer = Replay(runs)  # type: ignore[assignment]
        outcome = tuner.run()
        found = outcome.best
        ratio = found.fps / best.throughput_fps if found else 0.0
        rows.append(
            f"{name:<15} {stat}<={budget:8.2f} ms  grid best {best.throughput_fps:8.1f} "
            f"({best.config.label()[:24]})  replay {found.fps if found else 0:8.1f} "
            f"({found.config.label()[:24] if found else '-'}) = {ratio:4.2f}"
            f"{'  MISS' if ratio < 0.95 else ''}  trials {len(outcome.trials):>2}/{len(configs)}"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path, help="measure the grids and save them here")
    parser.add_argument("--grids", type=Path, help="replay the grids saved here")
    parser.add_argument("--time", default="1", help="seconds per grid run (--save)")
    parser.add_argument("--stat", default="p90", choices=("median", "p90", "p99"))
    parser.add_argument(
        "--models", default=",".join(m for m, (p, _) in MODELS.items() if p.exists())
    )
    args = parser.parse_args()
    if not (args.save or args.grids):
        parser.error("--save FILE (measure grids) or --grids FILE (replay saved ones)")
    if args.save:
        args.save.write_text(json.dumps(measure_grids(args.models.split(","), args.time)))
    grids = json.loads((args.grids or args.save).read_text())
    rows = [
        row
        for name, runs in grids.items()
        for row in replay(name, [RunResult.from_dict(r) for r in runs], args.stat)
    ]
    print("\n".join(rows))
    misses = sum("MISS" in row for row in rows)
    print(f"{misses} of {len(rows)} cases end below 0.95 of the grid's best")


if __name__ == "__main__":
    main()
