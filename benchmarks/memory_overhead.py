"""What measuring memory costs: the same benchmark with memory readings on and off.

    python benchmarks/memory_overhead.py [--pairs 6] [--time 5] [--engine onnxruntime]
                                         [--batch 1] [--model sample_models/mobilenet_fp32.onnx]

Each pair runs `python -m perftui bench MODEL --no-save --json` twice, once with the worker's
memory readings on (the default) and once with PERFTUI_MEMORY=0, the order alternating from
pair to pair (on/off, off/on, ...) so a drift of the machine falls on both alike. The readings
happen outside the timed window (a reset and a read of /proc/self/status at its edges, a
malloc_trim before the model is read), so the target is no difference: ratio on / off >= 0.99.

Prints each pair's items/s, each pair's ratio, their geometric mean with a paired 95 %
interval (t on the logs) and their median, and the readings' own cost timed in this process
(microseconds per reset + read). Run it alone on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from perftui.bench import memory  # noqa: E402
from perftui.domain.measurement.uncertainty import t_critical  # noqa: E402

MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"


def throughput(args: argparse.Namespace, on: bool) -> float:
    """One benchmark's items/s, memory readings `on` or off."""
    env = {**os.environ, memory.SWITCH: "1" if on else "0"}
    command = [
        sys.executable, "-m", "perftui", "bench", str(args.model), "--engine", args.engine,
        "--batch", str(args.batch), "--time", str(args.time), "--iterations", "10",
        "--no-save", "--json",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"perftui bench failed: {done.stderr.strip().splitlines()[-1:]}")
    (run,) = json.loads(done.stdout)["runs"]
    found = run.get("memory")
    if on != (found is not None):
        raise SystemExit(f"memory readings were {'off' if on else 'on'} when asked {on}")
    return float(run["throughput_fps"])


def reading_cost_us(repeats: int = 2000) -> float:
    """Microseconds of one reset and one read of this process's status."""
    start = time.perf_counter()
    for _ in range(repeats):
        memory.reset_peak()
        memory.sizes()
    return (time.perf_counter() - start) / repeats * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--time", type=float, default=5.0)
    parser.add_argument("--engine", default="onnxruntime")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--model", type=Path, default=MODEL)
    args = parser.parse_args()
    ratios = []
    print(f"{args.model.name} on {args.engine}, batch {args.batch}, {args.time:g} s per run")
    print(f"{'pair':>4}  {'order':<7}  {'on fps':>9}  {'off fps':>9}  {'on/off':>7}")
    for pair in range(args.pairs):
        first_on = pair % 2 == 0
        fps = {}
        for on in (first_on, not first_on):
            fps[on] = throughput(args, on)
        ratio = fps[True] / fps[False]
        ratios.append(ratio)
        order = "on,off" if first_on else "off,on"
        print(f"{pair + 1:>4}  {order:<7}  {fps[True]:>9.1f}  {fps[False]:>9.1f}  {ratio:>7.3f}")
    logs = [math.log(r) for r in ratios]
    mean = statistics.fmean(logs)
    half = (
        t_critical(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
        if len(logs) > 1
        else float("nan")
    )
    lo, hi = math.exp(mean - half), math.exp(mean + half)
    verdict = "met" if math.exp(mean) >= 0.99 else "not met"
    noise = "; 1 is within the interval" if lo <= 1 <= hi else ""
    print(
        f"ratio on/off: {math.exp(mean):.3f} (95 % {lo:.3f}-{hi:.3f}), geometric mean of "
        f"{len(ratios)} pairs; target >= 0.99: {verdict}{noise}"
    )
    print(f"median of the pairs' ratios: {statistics.median(ratios):.3f} (robust to one bad pair)")
    print(f"one reset + read of /proc/self/status: {reading_cost_us():.1f} us (outside the window)")


if __name__ == "__main__":
    main()
