"""The fixed cost of a benchmark on an SSH target: a quick bench on a loopback sshd, timed.

    python benchmarks/target_overhead.py [--before CHECKOUT] [--pairs 5]
    python benchmarks/target_overhead.py --matrix [--pairs 3]

--matrix: `bench --target local,h1,h2` (this machine and two loopback sshd "hosts") against
each host's share alone, in turn; hosts run in parallel, so the matrix should take about as
long as the slowest share (the issue's bound: at most 1.2x). The "hosts" share this machine's
CPUs, so the shares' timed windows (fixed seconds) dominate, not their start-up.

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


def bench_seconds(
    checkout: Path, db: Path, target: str, env: dict[str, str], quick: list[str] = QUICK
) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "perftui", "bench", str(MODEL), "--target", target, *quick],
        cwd=checkout,
        env={**env, "PERFTUI_DB": str(db), "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr}")
    return seconds


MATRIX = ["--batch", "1,2", "--time", "2"]
"""Each share: two runs of 2 timed seconds."""


def matrix(pairs: int) -> None:
    """Time the three-host matrix against each host's share alone, interleaved."""
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        with sshd(folder / "h1") as one, sshd(folder / "h2") as two:
            config = folder / "ssh_config"
            config.write_text(
                "".join(
                    server.config.read_text().split("Host perftui-test-closed")[0].replace(ALIAS, n)
                    for n, server in (("h1", one), ("h2", two))
                )
            )
            env = {**os.environ, "PERFTUI_SSH": f"ssh -F {config}"}
            db = folder / "db.json"
            for name in ("h1", "h2"):
                add = ["targets", "add", name, name, "--python", sys.executable, "--db", str(db)]
                subprocess.run(
                    [sys.executable, "-m", "perftui", *add],
                    env=env,
                    check=True,
                    capture_output=True,
                )
            hosts = ("local", "h1", "h2")
            quick = [*QUICK[:2], "--warmup", "1", "--iterations", "5", *MATRIX]
            for host in hosts:  # places the model on each host; not timed
                bench_seconds(ROOT, db, host, env, quick)
            ratios = []
            for pair in range(pairs):
                alone = {host: bench_seconds(ROOT, db, host, env, quick) for host in hosts}
                together = bench_seconds(ROOT, db, ",".join(hosts), env, quick)
                slowest = max(alone.values())
                ratios.append(together / slowest)
                shown = ", ".join(f"{h} {t:.2f} s" for h, t in alone.items())
                print(
                    f"pair {pair + 1}: alone {shown}; local,h1,h2 {together:.2f} s"
                    f" = {ratios[-1]:.2f}x the slowest share",
                    flush=True,
                )
            print(f"matrix / slowest share: median {statistics.median(ratios):.2f}x (bound 1.2x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, help="another perftui checkout to compare with")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--matrix", action="store_true", help="three hosts at once vs alone")
    args = parser.parse_args()
    if args.matrix:
        matrix(args.pairs)
        return
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
