"""How the store behaves with months of runs: a large database against an empty one, for the
store of this checkout and the one of an older commit (`--old`, default 5bedc5b: 0.1's store,
layout 7) side by side, each measured by this same script run in a process of its own on a
copy of that commit's code.

Builds, in a temporary folder and through the store's own API, a database of `--runs` runs
over `--projects` projects (by default one per 200 runs: a team's year of 100,000 runs is
500 projects; benchmarks of 8 configurations with 2 repetitions each, each
benchmark's request stored as `bench` stores it, a tenth of the runs profiled with `--layers`
layers, every run with `--samples` latency samples, the environment recorded as the worker
records it), then times, side by side on the large and on an empty database (one project, one run):

- the CLI, each in a fresh process as a person runs it: `projects --json`, `show P --json`
  of a 200-run project, `compare A B --json`, `export` and `import` of that export into a
  new database (each with its peak memory);
- in process: appending one run (a fresh Store, as a new `bench` opens it), alternating
  between the two databases `--pairs` times (the order flipped every pair, so a drift of the
  machine falls on both) and reported as the median of the pairs' ratios with their
  quartiles; and the home screen's first paint data (from a fresh Store: summaries,
  precisions and the combined figures of each project's best configurations, computed from
  the runs and their samples, or as the store keeps them: Store.headline), and again by the
  store that has just written.

With `--big N`, each also builds one project of N runs and times `show` of it and appending
a run to it (issue 39: 20,000 runs, a year of daily gates, show < 1 s, append < 100 ms).

Usage: python benchmarks/store_scale.py [--runs 10000] [--projects RUNS/200] [--layers 300]
       [--samples 5000] [--pairs 21] [--big 0] [--old 5bedc5b]
       (use e.g. --runs 1000 for a quick look)
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from statistics import fmean, median, quantiles

ROOT = Path(__file__).resolve().parent.parent
TREE = Path(os.environ.get("STORE_SCALE_TREE", ROOT))
"""The perftui measured: this checkout's, or (in a child) an older commit's copy."""
sys.path.insert(0, str(TREE))

import numpy as np  # noqa: E402

from perftui.bench.environment import environment  # noqa: E402
from perftui.domain.measurement.figures import group_runs  # noqa: E402
from perftui.domain.measurement.summary import config_key  # noqa: E402
from perftui.domain.records import (  # noqa: E402
    BenchmarkRequest,
    LatencyStats,
    LayerProfile,
    Project,
    RunConfig,
    RunResult,
    StoredBenchmark,
)
from perftui.store.database import Store  # noqa: E402

BATCH = 250
"""Runs stored per write while building."""


def make_run(project: str, index: int, rng: np.random.Generator, layers: int) -> RunResult:
    profile = None
    if layers and index % 10 == 0:
        precisions = ("I8", "FP32", "BF16")
        profile = tuple(
            LayerProfile(
                f"layer_{k}",
                "Convolution",
                "jit_avx512",
                precisions[k % 3],
                "executed",
                float(rng.random()),
                (f"n{k}",),
            )
            for k in range(layers)
        )
    median = float(rng.uniform(1, 20))
    return RunResult(
        config=RunConfig(batch=1 + index % 8, threads=index % 4, hint="latency", api="sync"),
        iterations=5000,
        duration_s=10.0,
        throughput_fps=1000 / median,
        first_inference_ms=median * 2,
        compile_ms=150.0,
        latency_ms=LatencyStats(
            median * 0.8, median, median, median * 1.1, median * 1.3, median * 2, 0.2, 0.02
        ),
        layers=profile,
        resolved={"streams": 1, "precision": "f32", "environment": environment()},
        project=project,
        benchmark_id=f"{project}-{index // 16}",  # 8 configurations measured twice each
        repetition=(index // 8) % 2,
        started_at=f"2025-{1 + index % 12:02d}-{1 + index % 28:02d}T00:00:{index % 60:02d}+00:00",
    )


def build(path: Path, runs: int, projects: int, layers: int, samples: int) -> list[str]:
    """The database of `runs` runs; the project names, the first holding 200 runs."""
    store = Store(path)
    names = [f"project-{i:02d}" for i in range(projects)]
    for name in names:
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino"))
    rng = np.random.default_rng(0)
    counts = [200] + [(runs - 200) // (projects - 1)] * (projects - 1) if projects > 1 else [runs]
    done = 0
    for name, count in zip(names, counts, strict=True):
        for start in range(0, count, BATCH):
            items = []
            for i in range(start, min(count, start + BATCH)):
                lat = rng.gamma(4.0, 1.0, samples).astype(np.float32)
                items.append((make_run(name, done + i, rng, layers), lat))
            store.add_runs(items)
        done += count
    store.merge(benchmarks(store, names, counts))
    return names


def benchmarks(store: Store, names: list[str], counts: list[int]) -> list[StoredBenchmark]:
    """The benchmark each 16 runs came from, as `bench` stores one (the request with its
    8 configurations), so the main document holds them as a team's database does."""
    configs = tuple(RunConfig(batch=1 + i, hint="latency", api="sync") for i in range(8))
    found, done = [], 0
    for name, count in zip(names, counts, strict=True):
        project = store.get_project(name)
        assert project is not None
        for index in range(done // 16, (done + count + 15) // 16):
            request = BenchmarkRequest(project=project, configs=configs, repeat=2)
            found.append(
                StoredBenchmark(f"{name}-{index}", name, "2025-01-01T00:00:00+00:00", request)
            )
        done += count
    return found


def timed_cli(db: Path, *args: str) -> tuple[float, float]:
    """(seconds, peak MB) of `perftui ARGS` in a fresh process: the sum of the peak resident
    memory (VmHWM) of it and of each process it starts (an import's workers), sampled every
    10 ms. Not the rusage of the child: a child forked from this large process starts with
    this process's peak as its own."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "perftui", "--db", str(db), *args],
        stdout=subprocess.DEVNULL,
        cwd=TREE,
        env={**os.environ, "PYTHONPATH": str(TREE)},
    )
    peaks: dict[int, int] = {}
    while child.poll() is None:
        for pid in _family(child.pid):
            peaks[pid] = max(peaks.get(pid, 0), _hwm_kb(pid))
        time.sleep(0.01)
    seconds = time.perf_counter() - started
    if child.returncode:
        raise SystemExit(f"perftui {' '.join(args)} exited {child.returncode}")
    return seconds, sum(peaks.values()) / 1024


def _family(pid: int) -> list[int]:
    """`pid` and the processes it started, and theirs."""
    found, todo = [], [pid]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _hwm_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def appended(db: Path, project: str, rng: np.random.Generator, samples: int) -> float:
    """Seconds a fresh Store (as a new `bench` opens it) takes to append the first run of a
    new benchmark, made beforehand (the worker's measuring and the environment's reading are
    not the store's)."""
    run = replace(make_run(project, 7, rng, 0), benchmark_id=uuid.uuid4().hex)
    latencies = rng.gamma(4.0, 1.0, samples)
    return timed(lambda: Store(db).add_run(run, latencies))


def append_ratio(
    large: tuple[Path, str], empty: tuple[Path, str], args: argparse.Namespace
) -> dict[str, str]:
    """Appending one run to the large database against the empty one: the pairs alternate
    (large first, then empty first), after one untimed append to each."""
    rng = np.random.default_rng(3)
    for db, project in (large, empty):
        appended(db, project, rng, args.samples)
    times: dict[Path, list[float]] = {large[0]: [], empty[0]: []}
    for n in range(args.pairs):
        for db, project in (large, empty) if n % 2 == 0 else (empty, large):
            times[db].append(appended(db, project, rng, args.samples))
    big, small = times[large[0]], times[empty[0]]
    ratios = sorted(b / s for b, s in zip(big, small, strict=True))
    low, _, high = quantiles(ratios, n=4)
    return {
        f"append a run, median of {args.pairs}": f"{median(big) * 1e3:.1f} ms",
        "append to an empty database": f"{median(small) * 1e3:.1f} ms",
        "append, large / empty": f"{median(ratios):.2f}x ({low:.2f}-{high:.2f})",
        "append, mean": f"{fmean(big) * 1e3:.1f} ms",
    }


def measure(db: Path, a: str, b: str, samples: int) -> dict[str, str]:
    rng = np.random.default_rng(1)

    def paint(store: Store, headline: Callable[[Store, str, str], object]) -> None:
        for project, summary in store.summaries():  # what the projects list reads
            for key in (summary.best_throughput_config, summary.best_latency_config):
                if key:
                    headline(store, project.name, key)
        store.precisions()

    def first_paint(headline: Callable[[Store, str, str], object]) -> Callable[[], None]:
        return lambda: paint(Store(db), headline)

    def after_write() -> float:
        """The projects list read again by the store that has just written a run."""
        store = Store(db)
        paint(store, Store.headline)
        store.add_run(make_run(a, 7, rng, 0), rng.gamma(4.0, 1.0, samples))
        return timed(lambda: paint(store, Store.headline))

    def computed(store: Store, project: str, key: str) -> None:  # from the runs and samples
        runs = [run for run in store.runs(project) if config_key(run) == key]
        group_runs(runs, lambda run: store.latency_samples(run.id))

    export_s, export_mb = timed_cli(db, "export", "-o", os.devnull)
    exported = db.with_name(db.name + ".export.json")
    timed_cli(db, "export", "-o", str(exported))
    import_s, import_mb = timed_cli(
        db.with_name(db.name + ".imported.json"), "import", str(exported)
    )
    exported.unlink()
    return {
        "projects --json": f"{timed_cli(db, 'projects', '--json')[0]:.2f} s",
        f"show {a} --json": f"{timed_cli(db, 'show', a, '--json')[0]:.2f} s",
        "compare A B --json": f"{timed_cli(db, 'compare', a, b, '--json')[0]:.2f} s",
        "home screen data, figures computed": f"{timed(first_paint(computed)):.3f} s",
        "home screen data, Store.headline": f"{timed(first_paint(Store.headline)):.3f} s",
        "home screen data after a write": f"{after_write():.3f} s",
        "export": f"{export_s:.2f} s",
        "export peak memory": f"{export_mb:.0f} MB",
        "import (into a new database)": f"{import_s:.2f} s",
        "import peak memory": f"{import_mb:.0f} MB",
    }


def big_project(folder: Path, runs: int, samples: int) -> dict[str, str]:
    """`show` of one project of `runs` runs, and appending a run to it (median of 5)."""
    db = folder / "big.json"
    build(db, runs, 1, 0, samples)
    rng = np.random.default_rng(4)
    appends = sorted(appended(db, "project-00", rng, samples) for _ in range(5))
    show = timed_cli(db, "show", "project-00", "--json")[0]
    return {
        f"one project of {runs} runs: show --json": f"{show:.2f} s",
        f"one project of {runs} runs: append a run": f"{appends[2] * 1e3:.0f} ms",
    }


def measured(args: argparse.Namespace) -> dict[str, str]:
    """Every figure of the store at TREE (in a child process of `main`)."""
    projects = args.projects or max(2, args.runs // 200)
    # as an installed perftui has them: its start-up is not spent compiling its modules
    compileall.compile_dir(TREE / "perftui", quiet=1)
    with tempfile.TemporaryDirectory(prefix="perftui-scale-") as folder:
        large, empty = Path(folder) / "large.json", Path(folder) / "empty.json"
        started = time.perf_counter()
        names = build(large, args.runs, projects, args.layers, args.samples)
        found = {"build (through the store's API)": f"{time.perf_counter() - started:.0f} s"}
        found["index or document size"] = f"{large.stat().st_size / 1e6:.2f} MB"
        build(empty, 1, 1, args.layers, args.samples)
        Store(empty).add_project(Project("project-01", "/models/b.onnx", "openvino"))
        Store(empty).add_run(make_run("project-01", 1, np.random.default_rng(2), 0))
        found.update(measure(large, names[0], names[1], args.samples))
        found.update(append_ratio((large, names[0]), (empty, "project-00"), args))
        if args.big:
            found.update(big_project(Path(folder), args.big, args.samples))
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--projects", type=int, help="default: one per 200 runs, at least 2")
    parser.add_argument("--layers", type=int, default=300)
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--pairs", type=int, default=21, help="append timings per database")
    parser.add_argument("--big", type=int, default=0, help="runs of one large project")
    parser.add_argument("--old", default="5bedc5b", help="the commit of the older store")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measured(args)))
        return
    with tempfile.TemporaryDirectory(prefix="perftui-old-") as old:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.old, "perftui"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", old], input=archive, check=True)
        results = {}
        for name, tree in ((f"old ({args.old})", Path(old)), ("new", ROOT)):
            child = subprocess.run(
                [sys.executable, __file__, "--child", *sys.argv[1:]],
                env={**os.environ, "STORE_SCALE_TREE": str(tree), "PYTHONPATH": str(tree)},
                cwd=tree,
                capture_output=True,
                text=True,
            )
            if child.returncode:
                raise SystemExit(f"the {name} store's measurement failed:\n{child.stderr}")
            results[name] = json.loads(child.stdout.splitlines()[-1])
    keys = list(dict.fromkeys(k for found in results.values() for k in found))
    width = max(map(len, keys))
    print(
        f"{args.runs} runs; {'':{width - len(str(args.runs)) - 6}}"
        + "".join(f"  {name:>16}" for name in results)
    )
    for key in keys:
        print(f"{key:{width}}" + "".join(f"  {r.get(key, '-'):>16}" for r in results.values()))


if __name__ == "__main__":
    main()
