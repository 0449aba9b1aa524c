"""Replay `perftui tune`'s search on a measured grid: which configuration would the search
end on if each of its trials measured what the grid measured?

benchmarks/tune.py measures a grid and a tune minutes apart, and this machine drifts in
between, so a miss there is the search's or the machine's. The replay separates them: it
runs the real search loop (perftui.tune.search.Tuner) with trials that answer each
configuration with the grid's own run of it, for a budget at every 10th percentile of the
grid's latencies. A case where the replay ends below the grid's best is the search's miss.

    .venv/bin/python benchmarks/tune_replay.py --save grids.json [--models mobilenet,...]
    .venv/bin/python benchmarks/tune_replay.py --grids grids.json [--stat p90]

--save measures each model's grid once (the grid of benchmarks/tune.py, a minute or two per
model) and keeps the runs; --grids replays saved grids, in seconds.

--noise SIGMA replays a machine that is not quiet: each run's throughput is the grid's times
a log-normal factor of that spread (its latencies divided by it), times a drift that walks
by --drift per run, over --seeds seeds, for benchmarks/tune.py's three budgets. Each case
then prints how often the search ended below 0.95 of the grid's best, or on a configuration
the grid puts over the budget, and how many runs it measured: a model of noise, to weigh one
way of searching against another before benchmarks/tune.py measures it.
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

from perftui.domain.errors import InputError  # noqa: E402
from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult  # noqa: E402
from perftui.domain.tune import playoff  # noqa: E402
from perftui.domain.tune.result import Limits, default_trials, patience  # noqa: E402
from perftui.tune.search import Outcome, Tuner  # noqa: E402

# A replay takes no time, so the playoff's share of the search's time would be chance: every
# playoff is afforded here (the replay models which configuration wins, not how long).
playoff.PLAYOFF_SHARE = float("inf")


def key(config: RunConfig) -> tuple[object, ...]:
    return (config.batch, config.threads, config.streams, config.requests)


class Replay:
    """Stands in for perftui.tune.trials.TrialRunner: each configuration's run is the grid's,
    scaled by noise and drift where `rng` is given."""

    cancelled = False

    def __init__(
        self,
        runs: list[RunResult],
        rng: np.random.Generator | None = None,
        noise: float = 0.0,
        drift: float = 0.0,
    ) -> None:
        self.runs = {key(run.config): run for run in runs}
        self.rng, self.noise, self.drift = rng, noise, drift
        self.level = 1.0
        self.count = 0

    def cancel(self) -> None:
        self.cancelled = True

    def run(self, config: RunConfig, _sink: object) -> tuple[RunResult, None, bool]:
        self.count += 1
        run = replace(self.runs[key(config)], config=config, id=f"r{self.count}")
        if self.rng is None or run.latency_ms is None:
            return run, None, False
        self.level *= float(np.exp(self.rng.normal(0.0, self.drift)))
        factor = self.level * float(np.exp(self.rng.normal(0.0, self.noise)))
        stats = run.latency_ms
        names = ("min", "mean", "median", "p90", "p99", "max")
        slower = {n: None if (v := getattr(stats, n)) is None else v / factor for n in names}
        return (
            replace(
                run, throughput_fps=run.throughput_fps * factor, latency_ms=replace(stats, **slower)
            ),
            None,
            False,
        )


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


def search_limits(candidates: int) -> Limits:
    """A tune's limits when neither --trials nor --budget is given (the bench's)."""
    return Limits(trials=default_trials(candidates), patience=patience(candidates))


def grid_figures(runs: list[RunResult], stat: str) -> tuple[dict, dict]:
    """The `stat` latency and the throughput of each configuration the grid ran successfully."""
    ok = [r for r in runs if r.status == "ok" and r.latency_ms is not None]
    latency = {key(r.config): getattr(r.latency_ms, stat) for r in ok}
    return latency, {key(r.config): r.throughput_fps for r in ok}


def search(name: str, runs: list[RunResult], stat: str, budget: float, trials: Replay) -> Outcome:
    """The real search loop over the grid's configurations, its trials run by `trials`."""
    configs = tuple(r.config for r in runs)
    request = BenchmarkRequest(Project(name, str(MODELS[name][0]), "openvino"), configs)
    tuner = Tuner(request, configs, stat, budget, search_limits(len(configs)), None)
    tuner.trial_runner = trials  # type: ignore[assignment]
    return tuner.run()


def noisy(
    name: str, runs: list[RunResult], stat: str, noise: float, drift: float, seeds: int
) -> list[str]:
    """Each case replayed on `seeds` noisy machines: misses and runs measured."""
    latency, fps = grid_figures(runs, stat)
    rows = []
    for share in (25, 50, 75):  # benchmarks/tune.py's budgets
        budget = float(np.percentile(list(latency.values()), share))
        best = max(fps[k] for k in fps if latency[k] <= budget)
        misses, counts = 0, []
        for seed in range(seeds):
            replay = Replay(runs, np.random.default_rng(seed), noise, drift)
            try:
                found = search(name, runs, stat, budget, replay).best
            except InputError:
                found = None
            truly = found is not None and latency[key(found.config)] <= budget
            misses += not truly or fps[key(found.config)] < 0.95 * best  # type: ignore[union-attr]
            counts.append(replay.count)
        rows.append(
            f"{name:<15} {stat}<={budget:8.2f} ms  misses {misses:>2}/{seeds}  "
            f"runs {np.mean(counts):5.1f} (most {max(counts)})"
        )
    return rows


def replay(name: str, runs: list[RunResult], stat: str) -> list[str]:
    latency, _ = grid_figures(runs, stat)
    rows = []
    for share in range(10, 100, 10):
        budget = float(np.percentile(list(latency.values()), share))
        fitting = [r for r in runs if key(r.config) in latency and latency[key(r.config)] <= budget]
        best = max(fitting, key=lambda r: r.throughput_fps)
        outcome = search(name, runs, stat, budget, Replay(runs))
        found = outcome.best
        ratio = found.fps / best.throughput_fps if found else 0.0
        rows.append(
            f"{name:<15} {stat}<={budget:8.2f} ms  grid best {best.throughput_fps:8.1f} "
            f"({best.config.label()[:24]})  replay {found.fps if found else 0:8.1f} "
            f"({found.config.label()[:24] if found else '-'}) = {ratio:4.2f}"
            f"{'  MISS' if ratio < 0.95 else ''}  trials {len(outcome.trials):>2}/{len(runs)}"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path, help="measure the grids and save them here")
    parser.add_argument("--grids", type=Path, help="replay the grids saved here")
    parser.add_argument("--time", default="1", help="seconds per grid run (--save)")
    parser.add_argument("--stat", default="p90", choices=("median", "p90", "p99"))
    parser.add_argument("--noise", type=float, default=0.0, help="log spread of a run")
    parser.add_argument("--drift", type=float, default=0.0, help="log step of the drift")
    parser.add_argument("--seeds", type=int, default=20, help="noisy replays per case")
    parser.add_argument(
        "--models", default=",".join(m for m, (p, _) in MODELS.items() if p.exists())
    )
    args = parser.parse_args()
    if not (args.save or args.grids):
        parser.error("--save FILE (measure grids) or --grids FILE (replay saved ones)")
    if args.save:
        args.save.write_text(json.dumps(measure_grids(args.models.split(","), args.time)))
    grids = json.loads((args.grids or args.save).read_text())
    found = {name: [RunResult.from_dict(r) for r in runs] for name, runs in grids.items()}
    if args.noise or args.drift:
        rows = [
            row
            for name, runs in found.items()
            for row in noisy(name, runs, args.stat, args.noise, args.drift, args.seeds)
        ]
        print("\n".join(rows))
        missed = sum(int(row.split("misses")[1].split("/")[0]) for row in rows)
        print(f"{missed} of {len(rows) * args.seeds} replays missed")
        return
    rows = [row for name, runs in found.items() for row in replay(name, runs, args.stat)]
    print("\n".join(rows))
    misses = sum("MISS" in row for row in rows)
    print(f"{misses} of {len(rows)} cases end below 0.95 of the grid's best")


if __name__ == "__main__":
    main()
