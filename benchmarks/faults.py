"""Faults anyone can rerun: kills mid-write, concurrent writers, hostile imports, bad input.

In a temporary folder:
1. `--kills` times, a writer process (runs with samples, or an import) is killed with SIGKILL
   after a random delay; the database must still open, and every run the writer had
   reported stored must be there.
2. `--writers` processes each store `--runs` runs at once on one database (impatient lock
   waits, so the journal is exercised); every run must be there afterwards.
3. Hostile import files and bad `bench` inputs through the real CLI: each must exit 2 with
   one line on stderr and leave the database unchanged.

Prints counts: damaged databases, runs lost, clean refusals, wrong exit codes, data written
when it should not be. Usage: python benchmarks/faults.py [--kills 100] [--writers 8]
[--runs 10]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perftui.domain.errors import StoreError  # noqa: E402
from perftui.store.database import Store  # noqa: E402
from perftui.store.payloads import KINDS, Payloads  # noqa: E402

MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from perftui.domain.records import Project, RunConfig, RunResult
    from perftui.store.database import Store
    store = Store(sys.argv[1])
    store.ensure_project(Project(name=sys.argv[3], model="/m.onnx", engine="openvino"))
    store.LOCK_TIMEOUT_S = float(sys.argv[4])
    for i in range(int(sys.argv[2])):
        run = store.add_run(
            RunResult(config=RunConfig(batch=1 + i % 8), project=sys.argv[3]),
            np.random.default_rng(i).random(5000, dtype=np.float32),
        )
        print(run.id, flush=True)
    """
)


def writer(db: Path, runs: int, project: str, patience: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), str(runs), project, str(patience)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )


def stored_ids(db: Path) -> set[str] | None:
    """The run ids the database holds, or None if it cannot be opened (damaged)."""
    try:
        store = Store(db)
        return {r.id for p in store.projects() for r in store.runs(p.name)}
    except StoreError:
        return None


def unreferenced(db: Path, ids: set[str]) -> int:
    """Payload files of runs the database does not hold (after a start-up has tidied)."""
    folder = Payloads(db).root
    return sum(
        1
        for kind, suffix in KINDS.items()
        for path in (folder / kind).glob(f"*{suffix}")
        if path.name[: -len(suffix)] not in ids
    )


def kills(folder: Path, count: int, export: Path) -> tuple[int, int, int]:
    """(damaged databases, runs lost, payload files left unreferenced) over `count` kills
    during writes and imports."""
    damaged = lost = left = 0
    rng = random.Random(5)
    for i in range(count):
        db = folder / f"kill{i % 10}.json"
        if i % 4 == 3:  # an import, killed
            proc = subprocess.Popen(
                [sys.executable, "-m", "perftui", "--db", str(db), "import", str(export)],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=ENV,
            )
        else:
            proc = writer(db, 50, "k", 30.0)
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        reported = set(out.split()) if i % 4 != 3 else set()
        ids = stored_ids(db)
        if ids is None:
            damaged += 1
        else:
            lost += len(reported - ids)
            left += unreferenced(db, ids)
    return damaged, lost, left


def contention(folder: Path, writers: int, runs: int) -> tuple[int, int]:
    """(damaged, runs lost) with `writers` processes storing `runs` runs each at once."""
    db = folder / "contention.json"
    procs = [writer(db, runs, "c", 0.2) for _ in range(writers)]
    reported: set[str] = set()
    for proc in procs:
        out, _ = proc.communicate()
        reported |= set(out.split())
    ids = stored_ids(db)  # a fresh start merges what was parked
    if ids is None:
        return 1, len(reported)
    return 0, len(reported - ids) + (writers * runs - len(reported))


def hostile_files(folder: Path) -> dict[str, Path]:
    run = {"id": "r1", "config": {"batch": 1, "hint": "latency", "api": "sync"}}

    def export(run_patch: dict, **project) -> dict:
        return {
            "perftui_export": 1,
            "projects": [
                {
                    "name": "h",
                    "model": "/m.onnx",
                    "engine": "openvino",
                    "runs": [{**run, **run_patch}],
                    **project,
                }
            ],
        }

    def config(**patch) -> dict:
        return export({"config": {**run["config"], **patch}})

    bomb = zlib.compress(bytes(256 << 20), 9)
    cases = {
        "batch-text": config(batch="abc"),
        "batch-list": config(batch=[1]),
        "batch-negative": config(batch=-5),
        "threads-text": config(threads="x"),
        "hint-number": config(hint=5),
        "api-evil": config(api="evil"),
        "engine": export({}, engine="os.system"),
        "error-object": export({"error": {"x": 1}}),
        "started-number": export({"started_at": 5}),
        "status": export({"status": "great"}),
        "id-path": export({"id": "../../x"}),
        "name-control": export({}, name="a\nb"),
        "latency-nan-text": export({"latency_ms": {"median": "fast"}}),
        "layers-bad": export({"layers": [{"name": "x"}]}),
        "resolved-deep": export({"resolved": {"a": json.loads("[" * 60 + "]" * 60)}}),
        "bomb": export(
            {
                "latency_samples": {
                    "dtype": "float32",
                    "codec": "zlib+base64",
                    "count": 64 << 20,
                    "data": base64.b64encode(bomb).decode(),
                }
            }
        ),
    }
    paths = {}
    for name, document in cases.items():
        paths[name] = folder / f"hostile-{name}.json"
        paths[name].write_text(json.dumps(document))
    raw = {
        "inf": '{"perftui_export": 1e999, "projects": []}',
        "digits": '{"perftui_export": ' + "9" * 5000 + "}",
        "deep": "[" * 100_000 + "]" * 100_000,
        "not-json": "{oops",
        "csv": "project,model,engine\n",
    }
    for name, text in raw.items():
        paths[name] = folder / f"hostile-{name}.json"
        paths[name].write_text(text)
    return paths


BAD_BENCH = {
    "batch-huge": ["--batch", "99999999999999999999"],
    "batch-zero": ["--batch", "0"],
    "seed-negative": ["--seed", "-1"],
    "time-nan": ["--time", "nan"],
    "surrogate-project": ["--project", "a\udcff"],
    "engine": ["--engine", "tensorrt"],
}


def refusals(folder: Path, hostile: dict[str, Path]) -> tuple[int, int, int]:
    """(clean refusals, wrong exit codes, data written) over hostile imports and bad input."""
    clean = wrong = written = 0
    db = folder / "refusals.json"
    commands = [["import", str(path)] for path in hostile.values()]
    commands += [["bench", str(MODEL), "--time", "0.1", *args] for args in BAD_BENCH.values()]
    for args in commands:
        before = db.read_bytes() if db.exists() else None
        result = subprocess.run(
            [sys.executable, "-m", "perftui", "--db", str(db), *args],
            capture_output=True,
            env=ENV,
        )
        after = db.read_bytes() if db.exists() else None
        lines = [x for x in result.stderr.splitlines() if x.strip()]
        ok = result.returncode == 2 and len(lines) == 1 and b"Traceback" not in result.stderr
        clean += ok
        wrong += result.returncode != 2
        written += after != before
        if not ok:
            print(
                f"  not refused cleanly: {args[:1] + args[2:]} -> {result.returncode}:"
                f" {result.stderr.decode(errors='replace').strip()[:200]}"
            )
    return clean, wrong, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perftui-faults-") as name:
        folder = Path(name)
        source = folder / "source.json"
        writer(source, 40, "imported", 30.0).communicate()
        export = folder / "export.json"
        subprocess.run(
            [sys.executable, "-m", "perftui", "--db", str(source), "export", "-o", str(export)],
            check=True,
            env=ENV,
        )
        damaged, lost, left = kills(folder, args.kills, export)
        c_damaged, c_lost = contention(folder, args.writers, args.runs)
        hostile = hostile_files(folder)
        clean, wrong, written = refusals(folder, hostile)
        total = len(hostile) + len(BAD_BENCH)
        print(f"kill -9 during writes and imports: {args.kills}")
        print(f"payload files left unreferenced after the next start: {left}")
        print(f"{args.writers} writers x {args.runs} runs: damaged {c_damaged}, runs lost {c_lost}")
        print(f"damaged databases: {damaged + c_damaged}")
        print(f"runs lost: {lost + c_lost}")
        print(f"clean refusals: {clean} of {total}")
        print(f"wrong exit codes: {wrong}")
        print(f"data written when it should not be: {written}")


if __name__ == "__main__":
    main()
