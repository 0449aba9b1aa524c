"""Tune against the full grid: does `perftui tune` find the grid's best under a latency budget
in a fraction of the grid's time?

For each model: measure the whole grid once through `perftui bench` (batch 1,2,4,8,16 x
threads 1,2 x streams 1,2 x requests 1,2,4, OpenVINO async), then run `perftui tune` on the
same space with three latency budgets (the 25th, 50th and 75th percentile of the grid's p90
latencies). Prints, per case, the tuned throughput over the grid's best under the same
budget, whether the tune measured the grid's best at all (a miss is then the search's or
the pick's), and the tuning time over the grid's time (both wall clock, each a fresh
process).

The grid and the tune are measured minutes apart, and a shared machine drifts by more than
the differences a tune looks for in that time. So each case then measures the grid's best
and the tuned best again side by side (alternately, `--again` rounds, default 10) and
prints the ratio judged from the rounds' pairs with its 95 % interval and its verdict, as
`perftui compare --measure` judges: the figure to judge the tune by. Beside it, the median
p90 of each side's rounds (grid/tuned), and which side is over the budget when measured
again: a configuration the grid's one run put under the budget may not be under it.

Models: the shipped samples, and real published architectures (MobileNetV2, DistilBERT)
where `benchmarks/corpus.py` has exported them to `.corpus/` (it needs torch; CI does not).

    .venv/bin/python benchmarks/tune.py [--time 1] [--models mobilenet,encoder,mobilenet-v2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perftui.domain.measurement.uncertainty import paired_ratio  # noqa: E402

MODELS = {
    "mobilenet": (ROOT / "sample_models" / "mobilenet_fp32.onnx", []),
    "encoder": (ROOT / "sample_models" / "encoder_fp32.onnx", ["--shape", "seq=16"]),
    "mobilenet-v2": (ROOT / ".corpus" / "mobilenet-v2.onnx", []),
    "distilbert-base": (ROOT / ".corpus" / "distilbert-base.onnx", ["--shape", "seq=16"]),
}
GRID = {"batch": "1,2,4,8,16", "threads": "1,2", "streams": "1,2", "requests": "1,2,4"}
SPACE = " ".join(f"{k}={v}" for k, v in GRID.items()) + " hint=throughput api=async"


def perftui(db: Path, *args: str) -> tuple[dict, float]:
    """The command's JSON and wall time; a tune's refusal (exit 2) as {"refused": its line}."""
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "perftui", *args, "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PERFTUI_DB": str(db)},
    )
    wall = time.monotonic() - started
    if result.returncode == 2 and args[0] == "tune":
        return {"refused": result.stderr.strip()}, wall
    if result.returncode not in (0, 1) or not result.stdout.strip():
        sys.exit(f"perftui {' '.join(args)} failed: {result.stderr.strip()[-400:]}")
    return json.loads(result.stdout), wall


def case(name: str, db: Path, seconds: str, repeats: int) -> list[str]:
    model, shape = MODELS[name]
    timing = ["--time", seconds, "--iterations", "20", "--warmup", "5"]
    flags = [f"--{k}={v}" for k, v in GRID.items()]
    grid, grid_s = perftui(
        db, "bench", str(model), "--project", name, *shape, *flags,
        "--hint", "throughput", "--api", "async", *timing,
    )  # fmt: skip
    points = [
        (g["throughput_fps"], g["latency_ms"]["p90"], g["config"])
        for g in grid["groups"]
        if g["latency_ms"]["p90"] is not None
    ]
    rows = []
    for share in (25, 50, 75):
        budget = float(np.percentile([p90 for _, p90, _ in points], share))
        best, _, best_config = max((p for p in points if p[1] <= budget), key=lambda p: p[0])
        tuned, tune_s = perftui(
            db, "tune", name, "--max-latency", f"{budget:.3f}", "--space", SPACE, *timing
        )
        if "refused" in tuned:
            rows.append(f"{name:<15} p90<={budget:8.2f} ms  REFUSED: {tuned['refused']}")
            print(rows[-1], flush=True)
            continue
        found = tuned["best"]["throughput_fps"] if tuned["best"] else 0.0
        tried = [t for t in tuned["trials"] if short(t["config"]) == short(best_config)]
        seen = f"tried, {len(tried[0]['run_ids'])} run(s)" if tried else "not tried"
        again, chosen = "no tuned best", "-"
        if tuned["best"]:
            chosen = short(tuned["best"]["config"])
            again = side_by_side(
                db, name, best_config, tuned["best"]["config"], timing, repeats, budget
            )
        rows.append(
            f"{name:<15} p90<={budget:8.2f} ms  grid best {best:8.1f} ({short(best_config)})  "
            f"tuned {found:8.1f} fps ({chosen}) = {found / best:4.2f}; grid's best {seen}; "
            f"again side by side: {again}  "
            f"trials {len(tuned['trials']):>2}/{len(points)}  "
            f"time {tune_s:5.1f}/{grid_s:5.1f} s = {tune_s / grid_s:4.0%}"
        )
        print(rows[-1], flush=True)
    return rows


def short(config: dict) -> str:
    return "b{batch} t{threads} s{streams} r{requests}".format(**config)


def config_flags(config: dict) -> list[str]:
    knobs = ("batch", "threads", "streams", "requests", "hint", "api")
    return [f"--{k}={config[k]}" for k in knobs]


def side_by_side(
    db: Path, name: str, grid: dict, tuned: dict, timing: list[str], rounds: int, budget: float
) -> str:
    """The tuned best over the grid's best, measured alternately for `rounds` rounds (grid
    then tuned, then tuned then grid, ...) and judged from the rounds' pairs, as `perftui
    compare --measure` judges (perftui.domain.measurement.uncertainty.paired_ratio)."""
    model, shape = MODELS[name]
    if grid == tuned:
        return "the same configuration"
    pairs: list[dict[str, float]] = []
    p90s: dict[str, list[float]] = {"grid": [], "tuned": []}
    for n in range(rounds):
        order = (("grid", grid), ("tuned", tuned))[:: 1 if n % 2 == 0 else -1]
        found: dict[str, float] = {}
        for side, config in order:
            doc, _ = perftui(
                db, "bench", str(model), "--project", name, *shape, *config_flags(config), *timing
            )
            ok = [r["throughput_fps"] for r in doc["runs"] if r["status"] == "ok"]
            if ok:
                found[side] = ok[0]
                p90s[side] += [r["latency_ms"]["p90"] for r in doc["runs"] if r["status"] == "ok"]
        if len(found) == 2:
            pairs.append(found)
    ratio = paired_ratio([p["grid"] for p in pairs], [p["tuned"] for p in pairs])
    if ratio is None:
        return "no interval"
    verdict = "within noise" if not ratio.significant else "better" if ratio.value > 1 else "WORSE"
    p90 = {side: float(np.median(p90s[side])) for side in ("grid", "tuned")}
    over = [side for side in ("grid", "tuned") if p90[side] > budget]
    edge = f" ({' and '.join(over)} over the budget again)" if over else ""
    return (
        f"{ratio.value:4.2f} ({ratio.lo:.2f}-{ratio.hi:.2f}) {verdict}, "
        f"p90 {p90['grid']:.2f}/{p90['tuned']:.2f} ms{edge}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", default="1", help="seconds per run, grid and trials alike")
    parser.add_argument("--again", type=int, default=10, help="side-by-side rounds (pairs)")
    parser.add_argument(
        "--models", default=",".join(m for m, (p, _) in MODELS.items() if p.exists())
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            row
            for name in args.models.split(",")
            for row in case(name, Path(tmp) / "tune-bench.json", args.time, args.again)
        ]
    print("\n".join(rows))


if __name__ == "__main__":
    main()
