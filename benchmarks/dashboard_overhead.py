"""What watching costs: the same benchmark started from the dashboard and from the CLI.

    python benchmarks/dashboard_overhead.py [--pairs 5] [--time 10] [--engine onnxruntime]
                                            [--model sample_models/mobilenet_fp32.onnx]

The dashboard is the real app (`perftui.tui.app.create_app` with the real services), driven
headless by Textual's Pilot (`App.run_test`) at 120x40: its live screen follows the benchmark
child and draws its progress and live charts as it does in a terminal (Textual composes and
renders every frame; only writing the bytes to a terminal is left out). The CLI side is
`python -m perftui bench` with the same settings (one builder makes both requests). Each pair
runs one of each, the order alternating, on a fresh database; the model runs with as many
threads as the machine has cores, so the benchmark keeps them all busy and any CPU the
dashboard takes shows in the throughput.

Prints each pair's items/s, the ratio dashboard / CLI, its median over the pairs (the target:
>= 0.98), and the dashboard process's own CPU use while its benchmark ran (user + system
seconds of this process, every thread of it, over the wall seconds; the child's CPU is the
child's), as a share of one core and of the machine. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from perftui.domain.forms.bench import DEFAULTS, build_request  # noqa: E402
from perftui.domain.records import Project  # noqa: E402
from perftui.store import Store  # noqa: E402
from perftui.tui.app import create_app  # noqa: E402
from perftui.tui.benchmark.charts import LiveChart  # noqa: E402

MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"
PROJECT = "overhead"


@dataclass(frozen=True)
class Side:
    fps: float
    wall_s: float
    cpu_s: float = 0.0
    """CPU seconds of the dashboard's own process while it ran the benchmark."""
    frames: int = 0
    """Chart frames drawn (the live charts' figures built)."""


def settings(args: argparse.Namespace) -> dict[str, str]:
    """The form's values; `cli_flags` says the same to `perftui bench`."""
    return {
        **DEFAULTS,
        "threads": str(args.threads),
        "time": str(args.time),
        "warmup": str(args.warmup),
        "iterations": "10",
    }


def cli_flags(args: argparse.Namespace) -> list[str]:
    values = settings(args)
    return [
        *("--engine", args.engine, "--threads", values["threads"], "--time", values["time"]),
        *("--warmup", values["warmup"], "--iterations", values["iterations"]),
    ]


def newest_fps(db: Path, before: set[str]) -> float:
    """Items/s of the one run stored since `before` (the ids there were)."""
    runs = [r for r in Store(db).runs(PROJECT) if r.id not in before]
    if len(runs) != 1 or runs[0].status != "ok":
        raise SystemExit(f"expected one new ok run, found {[(r.status, r.error) for r in runs]}")
    return runs[0].throughput_fps


def run_ids(db: Path) -> set[str]:
    return {r.id for r in Store(db).runs(PROJECT)}


def cli_side(db: Path, args: argparse.Namespace) -> Side:
    before = run_ids(db)
    command = [sys.executable, "-m", "perftui", "--db", str(db), "bench", str(args.model)]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "--project", PROJECT, *cli_flags(args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"perftui bench failed: {done.stderr.strip()}")
    return Side(newest_fps(db, before), wall)


async def dashboard_side(db: Path, args: argparse.Namespace) -> Side:
    before = run_ids(db)
    frames = 0
    plot = LiveChart.plot

    def counted(chart: LiveChart) -> None:
        nonlocal frames
        frames += 1
        plot(chart)

    LiveChart.plot = counted  # type: ignore[method-assign]
    app = create_app(db)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            project = app.store.get_project(PROJECT)  # type: ignore[union-attr]
            assert project is not None
            request = build_request(project, settings(args))
            # checked first, as the form does before it opens the live screen
            await asyncio.to_thread(app.services.validate, request)
            usage, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            app.run_benchmarks([request], validated=True)
            await pilot.pause()
            screen = app.screen
            while getattr(screen, "running", False) or not getattr(screen, "finished", None):
                if time.perf_counter() - started > 60 + 10 * args.time:
                    raise SystemExit("the dashboard's benchmark did not end")
                await pilot.pause(0.1)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        LiveChart.plot = plot  # type: ignore[method-assign]
    cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    return Side(newest_fps(db, before), wall, cpu, frames)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--time", type=float, default=10.0, help="seconds measured per run")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--engine", default="onnxruntime")
    parser.add_argument("--model", type=Path, default=MODEL)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"{args.model.name} on {args.engine}, {args.threads} threads, {args.time:g} s a run,")
    print(f"{args.pairs} pairs interleaved (order alternating), {cores} cores\n")
    print(" pair  first      dashboard    CLI items/s  ratio  dashboard CPU  frames")
    ratios, shares = [], []
    with tempfile.TemporaryDirectory() as temp:
        db = Path(temp) / "overhead.json"
        Store(db).add_project(Project(PROJECT, str(args.model.resolve()), args.engine, "CPU"))
        for n in range(args.pairs):
            first = "dashboard" if n % 2 == 0 else "CLI"
            if first == "dashboard":
                board = asyncio.run(dashboard_side(db, args))
                cli = cli_side(db, args)
            else:
                cli = cli_side(db, args)
                board = asyncio.run(dashboard_side(db, args))
            ratio = board.fps / cli.fps
            share = board.cpu_s / board.wall_s
            ratios.append(ratio)
            shares.append(share)
            print(
                f" {n + 1:>4}  {first:<9}  {board.fps:>9.1f}  {cli.fps:>11.1f}  {ratio:>5.3f}"
                f"  {share:>12.1%}  {board.frames:>6}"
            )
    ratio, share = statistics.median(ratios), statistics.median(shares)
    print(f"\nthroughput dashboard / CLI, median of {len(ratios)}: {ratio:.3f} (target >= 0.98)")
    print(
        f"dashboard process CPU while its benchmark ran, median: {share:.1%} of one core, "
        f"{share / cores:.1%} of the machine"
    )


if __name__ == "__main__":
    main()
