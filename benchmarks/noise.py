"""Do the compare verdicts tell real differences from noise, on this machine, as it is?

For each of `--pairs` pairs, three benchmarks of the shipped encoder through the CLI on a
temporary database, in a rotating order so that no side is always measured first:

- A: seq=128, A': seq=128 again (an A/A comparison: the same project and configuration
  measured twice; the verdict should say "no difference beyond noise"),
- B: seq=100 (a real difference: 1.31x fewer FLOPs than A, `perftui inspect`, so about
  1.25-1.3x the items/s on one thread; the verdict should find B faster).

Each benchmark measures its configuration `--repeat` times, each repetition in a fresh
worker. The default repeat of `perftui bench` is 1; the repeat suggested for comparisons
(perftui.domain.benchform.REPEAT_SUGGESTED, 3) is used here, since a comparison of single
runs holds the noise within each run only. One thread, so the two sides do not differ in how
they share the CPUs with other work. The budgets are short to keep the whole script to a few
minutes; a longer --time narrows the intervals within each run, not those between workers.

Prints, for throughput and for median latency: the share of A/A comparisons that say "no
difference beyond noise" (target >= 95 %) and the share of A/B that find B better (target
>= 95 %), each with its outcomes counted (OUTCOMES: a comparison without a verdict counts
against both targets); the
observed B/A ratio; the runs' verdicts and the CPU share other processes used meanwhile; the
wall time of one side of a comparison, and what the default 10 s budget would cost.

Usage: python benchmarks/noise.py [--pairs 20] [--repeat 3] [--time 0.5] [--iterations 50]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perftui.domain.benchform import REPEAT_SUGGESTED  # noqa: E402

MODEL = ROOT / "sample_models" / "encoder_fp32.onnx"
SLOW_SEQ, FAST_SEQ = 128, 100
DEFAULT_TIME_S = 10.0
"""`perftui bench`'s own time budget per run, for the cost of the default settings."""
TARGET = 0.95


def perftui(db: Path, *args: str) -> dict[str, Any]:
    """One CLI command with --json, in a fresh process as a person runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "perftui", *args, "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if not done.stdout.strip():
        sys.exit(f"perftui {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


OUTCOMES = ("found", "wrong way", "no difference", "no interval")
"""What a comparison's verdict said of one figure: B better (by the interval), B worse, "no
difference beyond noise", or no verdict at all ("no interval on both sides to judge by":
a side whose repetitions vary so much that its t-interval reaches zero)."""


def outcome(found: dict[str, Any] | None, metric: str) -> str:
    ratio = (found or {}).get("ratio")
    if ratio is None:
        return "no interval"
    if not found or not found.get("significant"):
        return "no difference"
    better = ratio > 1 if metric == "throughput" else ratio < 1
    return "found" if better else "wrong way"


@dataclass
class Tally:
    """Comparisons of one kind: each figure's outcomes, and the B/A throughput ratios."""

    outcomes: dict[str, Counter[str]] = field(
        default_factory=lambda: {"throughput": Counter(), "latency": Counter()}
    )
    ratios: list[float] = field(default_factory=list)

    def add(self, compared: dict[str, Any]) -> str:
        for metric, counts in self.outcomes.items():
            counts[outcome(compared.get(metric), metric)] += 1
        ratio = (compared.get("throughput") or {}).get("ratio")
        if ratio:
            self.ratios.append(ratio)
        return f"{ratio:.2f}" if ratio else "-"

    def rate(self, metric: str, wanted: str) -> float:
        counts = self.outcomes[metric]
        return counts[wanted] / sum(counts.values()) if counts else math.nan

    def counts(self, metric: str) -> str:
        counts = self.outcomes[metric]
        return ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts[o])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=REPEAT_SUGGESTED)
    parser.add_argument("--time", type=float, default=0.5, help="timed seconds per run")
    parser.add_argument("--iterations", type=int, default=50, help="minimum requests per run")
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()

    aa, ab = Tally(), Tally()
    verdicts: Counter[str] = Counter()
    others: list[float] = []
    side_s: list[float] = []
    per_run_s: list[float] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "noise.json"

        def bench(name: str, seq: int) -> None:
            start = time.perf_counter()
            doc = perftui(
                db, "bench", str(MODEL), "--engine", "onnxruntime", "--threads", "1",
                "--shape", f"seq={seq}", "--repeat", str(args.repeat),
                "--time", str(args.time), "--iterations", str(args.iterations),
                "--warmup", str(args.warmup), "--project", name,
            )  # fmt: skip
            side_s.append(time.perf_counter() - start)
            timed = 0.0
            for run in doc["runs"]:
                verdicts[run["verdict"]["status"]] += 1
                timed += run["duration_s"]
                load = run.get("load") or {}
                if load.get("total_s"):
                    others.append(max(0.0, load["busy_s"] - load["own_s"]) / load["total_s"])
            per_run_s.append((side_s[-1] - timed) / len(doc["runs"]))

        for pair in range(args.pairs):
            sides = [(f"a{pair}", SLOW_SEQ), (f"a{pair}-again", SLOW_SEQ), (f"b{pair}", FAST_SEQ)]
            for name, seq in sides[pair % 3 :] + sides[: pair % 3]:
                bench(name, seq)
            same = aa.add(perftui(db, "compare", f"a{pair}", f"a{pair}-again"))
            faster = ab.add(perftui(db, "compare", f"a{pair}", f"b{pair}"))
            print(
                f"pair {pair + 1}/{args.pairs}: B/A {same} (A/A), {faster} (A/B)", file=sys.stderr
            )
    report(args, aa, ab, verdicts, others, side_s, per_run_s, time.perf_counter() - started)


def report(
    args: argparse.Namespace,
    aa: Tally,
    ab: Tally,
    verdicts: Counter[str],
    others: list[float],
    side_s: list[float],
    per_run_s: list[float],
    elapsed_s: float,
) -> None:
    def pct(value: float) -> str:
        mark = "meets" if value >= TARGET else "MISSES"
        return f"{value:6.1%} ({mark} {TARGET:.0%})"

    geo = math.exp(statistics.fmean(math.log(r) for r in ab.ratios)) if ab.ratios else math.nan
    spread = statistics.stdev(aa.ratios) if len(aa.ratios) > 1 else math.nan
    runs = sum(verdicts.values())
    print(
        f"encoder seq={SLOW_SEQ} (A) vs seq={FAST_SEQ} (B), onnxruntime, 1 thread; "
        f"--repeat {args.repeat} --time {args.time} --iterations {args.iterations} "
        f"--warmup {args.warmup}; {args.pairs} pairs, {runs} runs"
    )
    for metric, words in (("throughput", "throughput"), ("latency", "median latency")):
        print(f"{words}: A/A says no difference {pct(aa.rate(metric, 'no difference'))} "
              f"[{aa.counts(metric)}]; A/B finds B better {pct(ab.rate(metric, 'found'))} "
              f"[{ab.counts(metric)}]")  # fmt: skip
    print(f"observed B/A throughput: {geo:.2f}x (geometric mean over the A/B pairs); "
          f"A/A ratios spread {spread:.2f} (standard deviation)")  # fmt: skip
    shares = ", ".join(f"{verdicts[s]} {s}" for s in ("stable", "noisy", "invalid"))
    load = statistics.fmean(others) if others else math.nan
    print(f"run verdicts: {shares}; other processes used {load:.0%} of the CPUs on average")
    side, overhead = statistics.median(side_s), statistics.median(per_run_s)
    print(
        f"cost: one side of a comparison took {side:.1f} s here ({args.repeat} runs, about "
        f"{overhead:.1f} s of each outside the timed window); at the default {DEFAULT_TIME_S:g} s "
        f"budget, one run costs about {DEFAULT_TIME_S + overhead:.0f} s and one side at "
        f"--repeat {args.repeat} about {args.repeat * (DEFAULT_TIME_S + overhead):.0f} s"
    )
    print(f"whole script: {elapsed_s / 60:.1f} min")


if __name__ == "__main__":
    main()
