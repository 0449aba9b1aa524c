"""Do the compare verdicts tell real differences from noise, on this machine, as it is?

Three projects of the shipped encoder on ONNX Runtime, one thread, on a temporary database:
A (seq=128), A' (seq=128 again) and B (seq=100: 1.31x fewer FLOPs than A, `perftui inspect`,
so about 1.25-1.3x the items/s). For each of `--pairs` pairs, an A/A comparison (A vs A':
the verdict should say "no difference beyond noise") and an A/B one (the verdict should
find B faster), in a rotating order, each measured as the design says:

- `paired` (the default): `perftui compare A B --measure R` measures both sides again,
  alternately, R rounds (default perftui.domain.forms.bench.MEASURE_ROUNDS), and judges B/A
  from the rounds' pairs.
- `repeats`: each side measured on its own with `perftui bench --repeat R` (default
  REPEAT_SUGGESTED), then `perftui compare` judges the two groups of repetitions.

One thread, so the two sides do not differ in how they share the CPUs with other work. The
paired design runs `compare --measure` as it is by default (rounds of 2 s runs); `--time`
changes the runs' length (and that of the `repeats` design's runs, 2 s when not given).

Prints, for throughput and for median latency: the share of A/A comparisons that say "no
difference beyond noise" (target >= 95 %) and the share of A/B that find B better (target
>= 95 %), each with its outcomes counted (OUTCOMES: a comparison without a verdict counts
against both targets); the observed B/A ratio; the runs' verdicts and the CPU share other
processes used meanwhile; the wall time of one comparison.

Usage: python benchmarks/noise.py [--design paired|repeats] [--pairs 20] [--rounds R]
       [--time S] [--iterations 50]
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

from perftui.domain.forms.bench import (  # noqa: E402
    MEASURE_ROUNDS,
    MEASURE_TIME_S,
    REPEAT_SUGGESTED,
)

MODEL = ROOT / "sample_models" / "encoder_fp32.onnx"
SLOW_SEQ, FAST_SEQ = 128, 100
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
    parser.add_argument("--design", choices=("paired", "repeats"), default="paired")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--rounds", type=int, help="rounds (paired) or repeats a side")
    parser.add_argument(
        "--time", type=float, help="timed seconds per run (default: compare --measure's, 2 s)"
    )
    parser.add_argument("--iterations", type=int, default=50, help="minimum requests per run")
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    paired = args.design == "paired"
    rounds = args.rounds or (MEASURE_ROUNDS if paired else REPEAT_SUGGESTED)
    seconds = args.time or MEASURE_TIME_S
    budget = ["--time", str(seconds), "--iterations", str(args.iterations)]
    budget += ["--warmup", str(args.warmup)]

    tallies = {"aa": Tally(), "ab": Tally()}
    comparison_s: list[float] = []
    measuring_s: list[float] = []
    """Wall time of every command that measures, to tell the cost outside the timed windows."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "noise.json"

        def bench(name: str, seq: int, repeat: int) -> float:
            start = time.perf_counter()
            perftui(
                db, "bench", str(MODEL), "--engine", "onnxruntime", "--threads", "1",
                "--shape", f"seq={seq}", "--repeat", str(repeat), *budget, "--project", name,
            )  # fmt: skip
            measuring_s.append(time.perf_counter() - start)
            return measuring_s[-1]

        def compare(kind: str, a: str, b: str, *measure: str) -> str:
            start = time.perf_counter()
            found = tallies[kind].add(perftui(db, "compare", a, b, *measure))
            if measure:
                comparison_s.append(time.perf_counter() - start)
                measuring_s.append(comparison_s[-1])
            return found

        projects = [("a", SLOW_SEQ), ("a-again", SLOW_SEQ), ("b", FAST_SEQ)]
        if paired:  # the configuration and budget each comparison measures again
            for name, seq in projects:
                bench(name, seq, 1)
        for pair in range(args.pairs):
            if paired:
                measure = ("--measure", str(rounds))
                measure += ("--time", str(args.time)) if args.time else ()
                kinds = [("aa", "a", "a-again"), ("ab", "a", "b")][:: 1 if pair % 2 else -1]
                found = {kind: compare(kind, a, b, *measure) for kind, a, b in kinds}
            else:
                names = [(f"{name}{pair}", seq) for name, seq in projects]
                side_s = [bench(name, seq, rounds) for name, seq in names[pair % 3 :]]
                side_s += [bench(name, seq, rounds) for name, seq in names[: pair % 3]]
                comparison_s.append(2 * statistics.median(side_s))
                found = {
                    "aa": compare("aa", f"a{pair}", f"a-again{pair}"),
                    "ab": compare("ab", f"a{pair}", f"b{pair}"),
                }
            print(
                f"pair {pair + 1}/{args.pairs}: B/A {found['aa']} (A/A), {found['ab']} (A/B)",
                file=sys.stderr,
            )
        runs = [run for name in perftui(db, "projects")["projects"] for run in
                perftui(db, "show", name["name"])["runs"]]  # fmt: skip
    elapsed_s = time.perf_counter() - started
    report(args, rounds, tallies, runs, comparison_s, sum(measuring_s), elapsed_s)


def report(
    args: argparse.Namespace,
    rounds: int,
    tallies: dict[str, Tally],
    runs: list[dict[str, Any]],
    comparison_s: list[float],
    measuring_s: float,
    elapsed_s: float,
) -> None:
    def pct(value: float) -> str:
        mark = "meets" if value >= TARGET else "MISSES"
        return f"{value:6.1%} ({mark} {TARGET:.0%})"

    aa, ab = tallies["aa"], tallies["ab"]
    geo = math.exp(statistics.fmean(math.log(r) for r in ab.ratios)) if ab.ratios else math.nan
    spread = statistics.stdev(aa.ratios) if len(aa.ratios) > 1 else math.nan
    how = "--measure" if args.design == "paired" else "--repeat"
    print(
        f"encoder seq={SLOW_SEQ} (A) vs seq={FAST_SEQ} (B), onnxruntime, 1 thread; "
        f"{args.design}: {how} {rounds}, --time {args.time or MEASURE_TIME_S:g} "
        f"--iterations {args.iterations} "
        f"--warmup {args.warmup}; {args.pairs} pairs, {len(runs)} runs"
    )
    for metric, words in (("throughput", "throughput"), ("latency", "median latency")):
        print(f"{words}: A/A says no difference {pct(aa.rate(metric, 'no difference'))} "
              f"[{aa.counts(metric)}]; A/B finds B better {pct(ab.rate(metric, 'found'))} "
              f"[{ab.counts(metric)}]")  # fmt: skip
    print(f"observed B/A throughput: {geo:.2f}x (geometric mean over the A/B pairs); "
          f"A/A ratios spread {spread:.2f} (standard deviation)")  # fmt: skip
    verdicts = Counter(run["verdict"]["status"] for run in runs)
    shares = ", ".join(f"{verdicts[s]} {s}" for s in ("stable", "noisy", "invalid"))
    others = [
        max(0.0, load["busy_s"] - load["own_s"]) / load["total_s"]
        for run in runs
        if (load := run.get("load") or {}).get("total_s")
    ]
    load = statistics.fmean(others) if others else math.nan
    print(f"run verdicts: {shares}; other processes used {load:.0%} of the CPUs on average")
    per_comparison = 2 * rounds
    outside = (measuring_s - sum(run["duration_s"] for run in runs)) / len(runs)
    print(
        f"cost: one comparison took {statistics.median(comparison_s):.1f} s here "
        f"({per_comparison} runs of {args.time or MEASURE_TIME_S:g} s, about {outside:.1f} s "
        "of each outside the timed window)"
    )
    print(f"whole script: {elapsed_s / 60:.1f} min")


if __name__ == "__main__":
    main()
