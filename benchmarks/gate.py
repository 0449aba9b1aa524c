"""Does `perftui gate` tell a slower candidate from noise, on this machine, as it is?

The shipped encoder on ONNX Runtime, one thread, on a temporary database. Projects of
seq=128 (the baseline) and of longer sequences are benchmarked once, briefly. On this 2-core
AMD EPYC VM, busy, gates of 10 rounds measured the median latency of seq=137 at 1.11x that of
seq=128 (136: 1.075-1.08, 138: 1.07-1.13, 134: 1.08, 132: 1.03, 141: 1.17-1.22: lengths off
a multiple of 8 take other kernels, and the ratio moves with the machine's state), so seq=137
stands in for "about 10 % slower" and seq=132 for "about 3-5 %"; each gate prints the B/A it
measured.

- `aa`: the model file against itself at seq=128 (an A/A gate): "fail" at most 5 % of the
  time (target: at most 1 of 20);
- `slow10`: seq=128 against seq=137: "fail" at least 19 of 20;
- `slow5` (`--kinds aa,slow10,slow5`): seq=128 against seq=132: what the default finds,
  and what it costs.

Prints each gate's verdict, rounds, B/A and wall time as it ends, then per kind the counts of
pass / fail / inconclusive, the median B/A and the mean and longest time; the machine's load
average before and after (run it on a quiet machine: other work widens the pairs' spread).

Usage: python benchmarks/gate.py [--gates 20] [--kinds aa,slow10] [--extra ARGS]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "sample_models" / "encoder_fp32.onnx"
BASE_SEQ = 128
KINDS = {"aa": None, "slow10": 137, "slow5": 132}
"""Each kind's candidate: None for the model file against itself, else a project's seq."""
SETTINGS = ["--engine", "onnxruntime", "--threads", "1"]


def perftui(db: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PERFTUI_DB": str(db)}
    command = [sys.executable, "-m", "perftui", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)


def prepare(db: Path) -> None:
    """One brief benchmark of each sequence length, as its own project."""
    for seq in sorted({BASE_SEQ, *(s for s in KINDS.values() if s)}):
        done = perftui(
            db, "bench", str(MODEL), *SETTINGS, "--shape", f"seq={seq}", "--time", "0.5",
            "--project", f"seq{seq}",
        )  # fmt: skip
        if done.returncode != 0:
            sys.exit(f"bench seq={seq} failed: {done.stderr.strip()}")


def gate_args(kind: str) -> list[str]:
    seq = KINDS[kind]
    if seq is None:
        return [str(MODEL), str(MODEL), *SETTINGS, "--shape", f"seq={BASE_SEQ}"]
    return [f"seq{BASE_SEQ}", f"seq{seq}"]


def one_gate(db: Path, kind: str, extra: list[str]) -> dict[str, Any]:
    started = time.monotonic()
    done = perftui(db, "gate", *gate_args(kind), "--json", "--no-save", *extra)
    elapsed = time.monotonic() - started
    if done.returncode not in (0, 1, 3):
        sys.exit(f"gate {kind} exited {done.returncode}: {done.stderr.strip()}")
    found = json.loads(done.stdout)
    ratios = [s["ratio"] for s in found["statistics"] if s["ratio"] is not None]
    return {
        "kind": kind,
        "verdict": found["verdict"],
        "exit": done.returncode,
        "rounds": found["rounds"],
        "ratio": ratios[0] if ratios else None,
        "interval": found["statistics"][0]["interval"],
        "seconds": elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gates", type=int, default=20, help="gates of each kind")
    parser.add_argument("--kinds", default="aa,slow10", help="aa, slow10, slow5")
    parser.add_argument("--extra", default="", help="more gate flags, e.g. '--rounds 20'")
    args = parser.parse_args()
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        sys.exit(f"unknown kind {unknown[0]!r}; kinds: {', '.join(KINDS)}")
    extra = shlex.split(args.extra)
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)", flush=True)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="perftui-gate-") as folder:
        db = Path(folder) / "db.json"
        prepare(db)
        for number in range(args.gates):
            for kind in kinds[number % len(kinds) :] + kinds[: number % len(kinds)]:
                found = one_gate(db, kind, extra)
                results.append(found)
                lo, hi = found["interval"]
                shown = (
                    "-" if found["ratio"] is None else f"{found['ratio']:.3f} ({lo:.3f}-{hi:.3f})"
                )
                print(
                    f"{kind:7} {number + 1:2}/{args.gates}  {found['verdict']:12}  "
                    f"rounds {found['rounds']:2}  B/A {shown}  {found['seconds']:.1f} s",
                    flush=True,
                )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for kind in kinds:
        mine = [r for r in results if r["kind"] == kind]
        counts = Counter(r["verdict"] for r in mine)
        ratios = [r["ratio"] for r in mine if r["ratio"] is not None]
        seconds = [r["seconds"] for r in mine]
        print(
            f"{kind}: {len(mine)} gates: pass {counts['pass']}, fail {counts['fail']}, "
            f"inconclusive {counts['inconclusive']}; median B/A "
            f"{statistics.median(ratios) if ratios else float('nan'):.3f}; "
            f"{statistics.mean(seconds):.0f} s a gate on average, {max(seconds):.0f} s longest"
        )


if __name__ == "__main__":
    main()
