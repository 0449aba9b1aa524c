"""The capacity under a p99 objective, checked from both sides, on the shipped sample models.

For each model and engine, through the real `perftui` command:
  1. `perftui capacity MODEL --slo p99=...` (the search, with the closed-loop maximum beside it);
  2. `perftui bench MODEL --rate 0.8C,1.2C` (C the capacity found): the 0.8x run should meet
     the objective and the 1.2x run should not.
Then FP32 against INT8 MobileNet on OpenVINO through `perftui compare` (capacity B/A).

Prints one table row per model and engine. Every figure is measured in this run; on a machine
that other work shares, a p99 objective depends on that work too: the load average is printed.

  python benchmarks/capacity_table.py [--slo p99=10ms] [--budget 60] [--time 6] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MODELS = Path(__file__).resolve().parents[1] / "sample_models"
CASES = (
    ("mobilenet", "mobilenet_fp32.onnx", ()),
    ("encoder", "encoder_fp32.onnx", ("--shape", "seq=128")),
)
ENGINES = ("openvino", "onnxruntime")


def perftui(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "perftui", *args, "--json"], capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"perftui {' '.join(args)}: exit {done.returncode}: {done.stderr}")
    return json.loads(done.stdout)


def interval(lo: float | None, hi: float | None) -> str:
    return f"({'?' if lo is None else f'{lo:,.0f}'}-{'?' if hi is None else f'{hi:,.0f}'})"


def p99_text(run: dict[str, Any], bound_ms: float) -> str:
    traffic = run["traffic"]
    p99 = traffic["latency_ms"]["p99"]
    hi = traffic["latency_ci_ms"]["p99"][1]
    met = hi is not None and hi <= bound_ms and not traffic["saturated"]
    state = "meets" if met else ("saturated" if traffic["saturated"] else "fails")
    if not traffic["schedule_kept"]:
        state += ", schedule not kept"
    upper = "?" if hi is None else f"{hi:.2f}"
    return f"p99 {p99:.2f} ms (..{upper}) {state}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slo", default="p99=10ms")
    parser.add_argument("--budget", default="60")
    parser.add_argument("--time", default="6", help="seconds of each 0.8x / 1.2x run")
    parser.add_argument("--threads", default="1", help="the engine's threads (a core is left)")
    args = parser.parse_args()
    bound_ms = float(args.slo.split("=")[1].removesuffix("ms"))
    db = str(Path(tempfile.mkdtemp(prefix="perftui-capacity-")) / "db.json")
    common = ["--threads", args.threads, "--db", db]
    print(
        f"objective {args.slo}, budget {args.budget} s, threads {args.threads}, load "
        f"{os.getloadavg()[0]:.2f}"
    )
    print("| model | engine | capacity /s (interval) | closed-loop max /s | 0.8x | 1.2x | load |")
    print("|---|---|---|---|---|---|---|")
    for name, file, flags in CASES:
        for engine in ENGINES:
            project = f"{name}-{engine}"
            model = str(MODELS / file)
            found = perftui(
                "capacity",
                model,
                "--engine",
                engine,
                "--project",
                project,
                "--slo",
                args.slo,
                "--budget",
                args.budget,
                *flags,
                *common,
            )
            closed = found["closed_loop"] or {}
            closed_text = (
                f"{closed['rate']:,.0f} {interval(*(closed.get('rate_ci') or (None, None)))}"
                if closed
                else "-"
            )
            capacity = found["capacity"]
            if capacity is None:
                print(
                    f"| {name} | {engine} | none met ({found['stopped']}) | {closed_text} "
                    f"| - | - | {os.getloadavg()[0]:.2f} |"
                )
                continue
            rates = f"{0.8 * capacity:.4g},{1.2 * capacity:.4g}"
            bench = perftui(
                "bench",
                model,
                "--engine",
                engine,
                "--project",
                f"{project}-check",
                "--rate",
                rates,
                "--time",
                args.time,
                *flags,
                *common,
            )
            low, high = sorted(bench["runs"], key=lambda run: run["config"]["rate"])
            confirmed = "confirmed" if found["confirmed"] else "not confirmed"
            print(
                f"| {name} | {engine} | {capacity:,.0f} {interval(*found['capacity_ci'])} "
                f"{confirmed} | {closed_text} | {p99_text(low, bound_ms)} | "
                f"{p99_text(high, bound_ms)} | {os.getloadavg()[0]:.2f} |"
            )
    int8 = str(MODELS / "mobilenet_int8.onnx")
    perftui(
        "capacity",
        int8,
        "--engine",
        "openvino",
        "--project",
        "mobilenet-int8-openvino",
        "--slo",
        args.slo,
        "--budget",
        args.budget,
        *common,
    )
    compared = perftui("compare", "mobilenet-openvino", "mobilenet-int8-openvino", "--db", db)
    print("\nFP32 (A) against INT8 (B), MobileNet on OpenVINO:")
    print(json.dumps(compared.get("capacity"), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
