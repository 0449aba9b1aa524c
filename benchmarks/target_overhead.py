"""The fixed cost of a benchmark on an SSH target: a quick bench on a loopback sshd, timed.

    python benchmarks/target_overhead.py [--before CHECKOUT] [--pairs 5]

With --before (another checkout of perftui, e.g. `git worktree add /tmp/before COMMIT`), each
pair runs that checkout's `bench --target` and this one's, interleaved, both against the same
server; each side's "remote" perftui is its own checkout. Prints each wall time and the medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.sshd import ALIAS, sshd  # noqa: E402

MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"
QUICK = ["--engine", "onnxruntime", "--time", "0.2", "--iterations", "5", "--warmup", "1"]


def remote_python(folder: Path, checkout: Path) -> str:
    """A python on the "host" that imports `checkout`'s perftui."""
    script = folder / f"python-{checkout.name}"
    script.write_text(f'#!/bin/sh\nPYTHONPATH={checkout} exec {sys.executable} "$@"\n')
    script.chmod(0o755)
    return str(script)


def bench_seconds(checkout: Path, db: Path, target: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "perftui", "bench", str(MODEL), "--target", target, *QUICK],
        cwd=checkout,
        env={**env, "PERFTUI_DB": str(db), "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, help="another perftui checkout to compare with")
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    sides = {"this": ROOT, **({"before": args.before.resolve()} if args.before else {})}
    with tempfile.TemporaryDirectory() as temp, sshd(Path(temp) / "sshd") as server:
        folder = Path(temp)
        env = {**os.environ, "PERFTUI_SSH": server.ssh}
        for name, checkout in sides.items():
            db = folder / f"{name}.json"
            py = remote_python(folder, checkout)
            subprocess.run(
                [sys.executable, "-m", "perftui", "targets", "add", name, ALIAS, "--python", py],
                cwd=checkout,
                env={**env, "PERFTUI_DB": str(db), "PYTHONPATH": str(checkout)},
                check=True,
                capture_output=True,
            )
            bench_seconds(checkout, db, name, env)  # places the model; not timed
        times: dict[str, list[float]] = {name: [] for name in sides}
        for pair in range(args.pairs):
            for name, checkout in sides.items():
                times[name].append(bench_seconds(checkout, folder / f"{name}.json", name, env))
            print(f"pair {pair + 1}: " + ", ".join(f"{n} {t[-1]:.2f} s" for n, t in times.items()))
        for name, values in times.items():
            print(f"{name}: median {statistics.median(values):.2f} s over {len(values)} benches")


if __name__ == "__main__":
    main()
