"""How long a real `perftui optimize` of the sample model takes, end to end.

Runs the command the dashboard runs (a child `python -m perftui optimize PROJECT --json`)
`--repeats` times on a scratch database, each in a fresh process, and prints every wall time
with the median and the slowest. This is the speed figure the functional tests no longer
assert (a wall-clock limit fails on a loaded machine for reasons that are not perftui's);
`--limit S` turns it into a check that exits 1 when the median exceeds S seconds.

Usage: python benchmarks/optimize_speed.py [--model sample_models/mobilenet_fp32.onnx]
       [--samples 4] [--repeats 3] [--limit 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perftui.domain.records import Project  # noqa: E402
from perftui.optimize.runner import Finished, OptimizeOptions, OptimizeProcess  # noqa: E402
from perftui.store.database import Store  # noqa: E402

DEFAULT_MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"


def one_optimization(model: Path, samples: int, folder: Path) -> float:
    """Seconds from starting the child to its end; raises if it did not succeed."""
    db = folder / "speed.json"
    Store(db).add_project(Project("source", str(model), "onnxruntime", "CPU"))
    process = OptimizeProcess(OptimizeOptions("source", samples=samples), db)
    started = time.perf_counter()
    finished = None
    for event in process.events():
        if isinstance(event, Finished):
            finished = event
    elapsed = time.perf_counter() - started
    if finished is None or finished.status != "ok":
        raise RuntimeError(f"the optimization did not succeed: {finished}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=float, default=None, help="fail above this median (s)")
    args = parser.parse_args()
    print(f"model {args.model}, {args.samples} random samples, {os.cpu_count()} logical cores")
    times = []
    for n in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="perftui-speed-") as folder:
            seconds = one_optimization(args.model, args.samples, Path(folder))
        times.append(seconds)
        print(f"  optimization {n + 1}/{args.repeats}: {seconds:.2f} s")
    median = statistics.median(times)
    print(f"median {median:.2f} s, slowest {max(times):.2f} s")
    if args.limit is not None and median > args.limit:
        print(f"slower than the limit of {args.limit:.1f} s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
